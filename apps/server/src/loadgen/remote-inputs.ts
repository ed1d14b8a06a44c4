/**
 * What a load target that talks to a remote server (HTTP or gRPC) needs per model: the input generator
 * built once from the model's config as the server reports it, and the encoded request for each
 * (model, version, batch, shape, priority, timeout), built once and sent again and again. A request of a
 * sequence differs from the last in its sequence fields only: its inputs are built once, its encoding is
 * made each time.
 */
import type { InferPayload } from '@inferscope/core';
import { InputGenerator, modelIOFromConfig } from './input-generator';
import { AutoSequences, isStateful } from './sequences';
import type { InferCall } from './infer-call';

export class RemoteInputs<R> {
  private generators = new Map<string, Promise<InputGenerator>>();
  /** per stateful model version: adds sequence fields to calls that came without (sequences.ts) */
  private sequencers = new Map<string, AutoSequences>();
  private requests = new Map<string, R>();
  private payloads = new Map<string, InferPayload>();

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
      g = this.fetchConfig(model, version).then((cfg) => {
        if (isStateful(cfg)) this.sequencers.set(key, new AutoSequences(this.seed));
        return new InputGenerator(modelIOFromConfig(cfg), this.seed);
      });
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

  /** The encoded request of a call (a stateful model's with its sequence fields); `done` once it is answered. */
  async request(asked: InferCall): Promise<{ request: R; done(): void }> {
    const gen = await this.generator(asked.model, asked.version);
    const { call, done } = this.sequencers.get(`${asked.model}/${asked.version ?? ''}`)?.take(asked) ?? { call: asked, done: () => undefined };
    const key = `${call.model}/${call.version ?? ''}/${call.batchSize}/${call.shape?.join('x') ?? ''}/${call.priority ?? ''}/${call.timeoutUs ?? ''}`;
    const cached = call.sequence ? undefined : this.requests.get(key);
    if (cached) return { request: cached, done };
    let payload = this.payloads.get(key);
    if (!payload) {
      payload = gen.payload(call.batchSize, call.shape);
      if (this.payloads.size < 1024) this.payloads.set(key, payload);
    }
    const req = this.encode(call, payload);
    if (!call.sequence && this.requests.size < 1024) this.requests.set(key, req);
    return { request: req, done };
  }
}
