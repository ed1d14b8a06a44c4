/**
 * `perf -i grpc`: requests go to Triton's gRPC endpoint (ModelInfer with raw_input_contents, as
 * perf_analyzer -i grpc sends them) through a grpc-js client built from the server's own .proto files.
 * The model's config (ModelConfig RPC) shapes the inputs; statistics come from ModelStatistics.
 */
import { credentials, status as Status, type Client, type ServiceError } from '@grpc/grpc-js';
import type { Tensor } from '@inferscope/core';
import { inferenceService } from '../../grpc/proto';
import { InputGenerator, modelIOFromConfig } from '../input-generator';
import type { InferCall, InferOutcome, InferTarget } from '../targets';
import { encodeBinaryData } from '../../kserve/binary-data';

/** gRPC code -> the HTTP status Triton's HTTP front end answers for the same error (for reports). */
const HTTP_OF: Partial<Record<Status, number>> = {
  [Status.INVALID_ARGUMENT]: 400,
  [Status.NOT_FOUND]: 404,
  [Status.UNAVAILABLE]: 503,
  [Status.UNIMPLEMENTED]: 501,
  [Status.RESOURCE_EXHAUSTED]: 413,
  [Status.DEADLINE_EXCEEDED]: 504,
};

type Stub = Client & Record<string, (req: object, cb: (err: ServiceError | null, res: any) => void) => unknown>; // eslint-disable-line @typescript-eslint/no-explicit-any

export class GrpcTarget implements InferTarget {
  readonly kind = 'grpc' as const;
  private readonly client: Stub;
  private generators = new Map<string, Promise<InputGenerator>>();
  private requests = new Map<string, object>();

  /** address: host:port (the server's --grpc-port, 8001 by default) */
  constructor(address: string, private readonly seed = 1) {
    const Ctor = inferenceService();
    this.client = new Ctor(address, credentials.createInsecure(), { 'grpc.max_receive_message_length': -1 }) as unknown as Stub;
  }

  private rpc<T>(method: string, req: object): Promise<T> {
    return new Promise((resolve, reject) => this.client[method](req, (err, res) => (err ? reject(err) : resolve(res as T))));
  }

  statistics(model: string, version?: string): Promise<unknown> {
    return this.rpc('ModelStatistics', { name: model, version: version ?? '' });
  }

  /** The model's config (ModelConfig RPC), JSON-shaped like GET .../config. */
  config(model: string, version?: string): Promise<Record<string, unknown>> {
    return this.rpc<{ config: Record<string, unknown> }>('ModelConfig', { name: model, version: version ?? '' }).then((r) => r.config);
  }

  generator(model: string, version?: string): Promise<InputGenerator> {
    const key = `${model}/${version ?? ''}`;
    let g = this.generators.get(key);
    if (!g) {
      g = this.rpc<{ config: Record<string, unknown> }>('ModelConfig', { name: model, version: version ?? '' })
        .then((r) => new InputGenerator(modelIOFromConfig(r.config), this.seed));
      g.catch(() => this.generators.delete(key));
      this.generators.set(key, g);
    }
    return g;
  }

  async check(model: string, version?: string): Promise<void> {
    try {
      await this.generator(model, version);
    } catch (err) {
      throw new Error(`model '${model}'${version ? ` version ${version}` : ''} cannot take load: ${(err as ServiceError).details ?? (err as Error).message}`);
    }
  }

  async infer(call: InferCall): Promise<InferOutcome> {
    let req: object;
    try {
      const key = `${call.model}/${call.version ?? ''}/${call.batchSize}/${call.shape?.join('x') ?? ''}/${call.priority ?? ''}/${call.timeoutUs ?? ''}`;
      const cached = this.requests.get(key);
      if (cached) req = cached;
      else {
        const gen = await this.generator(call.model, call.version);
        req = inferRequest(call, gen.payload(call.batchSize, call.shape).inputs);
        if (this.requests.size < 1024) this.requests.set(key, req);
      }
    } catch (err) {
      return { ok: false, status: 0, error: (err as ServiceError).details ?? (err as Error).message };
    }
    try {
      await this.rpc('ModelInfer', req);
      return { ok: true, status: 200 };
    } catch (err) {
      const e = err as ServiceError;
      return { ok: false, status: HTTP_OF[e.code] ?? 500, error: e.details ?? e.message };
    }
  }

  close(): void {
    this.client.close();
  }
}

function inferRequest(call: InferCall, inputs: Tensor[]): object {
  const parameters: Record<string, object> = {};
  if (call.priority !== undefined) parameters.priority = { uint64_param: String(call.priority) };
  if (call.timeoutUs !== undefined) parameters.timeout = { uint64_param: String(call.timeoutUs) };
  return {
    model_name: call.model,
    model_version: call.version ?? '',
    parameters,
    inputs: inputs.map((t) => ({ name: t.name, datatype: t.datatype, shape: t.shape })),
    raw_input_contents: inputs.map((t) => {
      const b = encodeBinaryData(t.datatype, t.data);
      return Buffer.from(b.buffer, b.byteOffset, b.byteLength);
    }),
  };
}
