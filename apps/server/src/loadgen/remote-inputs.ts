/**
 * What a load target that talks to a remote server (HTTP or gRPC) needs per model: the input generator
 * built once from the model's config as the server reports it, and the encoded request for each
 * (model, version, batch, shape, priority, timeout), built once and sent again and again.
 */
import type { InferPayload } from '@inferscope/core';
import { InputGenerator, modelIOFromConfig } from './input-generator';
import type { InferCall } from './infer-call';

export class RemoteInputs<R> {
  private generators = new Map<string, Promise<InputGenerator>>();
  private requests = new Map<string, R>();

  constructor(
    /** the model config document (JSON-shaped) from the server */
    private readonly fetchConfig: (model: string, version?: string) => Promise<Record<string, unknown>>,
    /** the protocol's encoded request for one payload */
    private readonly encode: (call: InferCall, payload: InferPayload) => R,
    private readonly seed = 1,
  ) {}

  generator(model: string, version?: string): Promise<InputGenerator> {
    const key = `${model}/${version ?? ''}`;
    let g = this.generators.get(key);
    if (!g) {
      g = this.fetchConfig(model, version).then((cfg) => new InputGenerator(modelIOFromConfig(cfg), this.seed));
      g.catch(() => this.generators.delete(key));
      this.generators.set(key, g);
    }
    return g;
  }

  /** Rejects with a clear message when the server cannot describe the model. */
  async check(model: string, version?: string, describe: (err: unknown) => string = (e) => (e as Error).message): Promise<void> {
    try {
      await this.generator(model, version);
    } catch (err) {
      throw new Error(`model '${model}'${version ? ` version ${version}` : ''} cannot take load: ${describe(err)}`);
    }
  }

  async request(call: InferCall): Promise<R> {
    const key = `${call.model}/${call.version ?? ''}/${call.batchSize}/${call.shape?.join('x') ?? ''}/${call.priority ?? ''}/${call.timeoutUs ?? ''}`;
    const cached = this.requests.get(key);
    if (cached) return cached;
    const gen = await this.generator(call.model, call.version);
    const req = this.encode(call, gen.payload(call.batchSize, call.shape));
    if (this.requests.size < 1024) this.requests.set(key, req);
    return req;
  }
}
