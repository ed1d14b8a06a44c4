/**
 * `perf -i grpc`: requests go to Triton's gRPC endpoint (ModelInfer with raw_input_contents, as
 * perf_analyzer -i grpc sends them) through a grpc-js client built from the server's own .proto files.
 * The model's config (ModelConfig RPC) shapes the inputs; statistics come from ModelStatistics.
 */
import { credentials, status as Status, type Client, type ServiceError } from '@grpc/grpc-js';
import type { Tensor } from '@inferscope/core';
import { inferenceService } from '../../grpc/proto';
import type { InputGenerator } from '../../loadgen/input-generator';
import { RemoteInputs } from '../../loadgen/remote-inputs';
import type { InferCall, InferOutcome, InferTarget } from '../../loadgen/targets';
import { httpStatusOfCode } from '@inferscope/core';
import { codeOfGrpcStatus } from '../../grpc/status';
import { encodeBinaryData } from '../../infer/binary-data';

type Stub = Client & Record<string, (req: object, cb: (err: ServiceError | null, res: any) => void) => unknown>; // eslint-disable-line @typescript-eslint/no-explicit-any

export class GrpcTarget implements InferTarget {
  readonly kind = 'grpc' as const;
  private readonly client: Stub;
  private readonly inputs: RemoteInputs<object>;

  /** address: host:port (the server's --grpc-port, 8001 by default) */
  constructor(address: string, seed = 1) {
    const Ctor = inferenceService();
    this.client = new Ctor(address, credentials.createInsecure(), { 'grpc.max_receive_message_length': -1 }) as unknown as Stub;
    this.inputs = new RemoteInputs(
      (model, version) => this.rpc<{ config: Record<string, unknown> }>('ModelConfig', { name: model, version: version ?? '' }).then((r) => r.config),
      (call, payload) => inferRequest(call, payload.inputs),
      seed,
    );
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
    return this.inputs.generator(model, version);
  }

  check(model: string, version?: string): Promise<void> {
    return this.inputs.check(model, version, (e) => (e as ServiceError).details ?? (e as Error).message);
  }

  async infer(call: InferCall): Promise<InferOutcome> {
    let prepared: { request: object; done(): void };
    try {
      prepared = await this.inputs.request(call);
    } catch (err) {
      return { ok: false, status: 0, error: (err as ServiceError).details ?? (err as Error).message };
    }
    try {
      await this.rpc('ModelInfer', prepared.request).finally(() => prepared.done());
      return { ok: true, status: 200 };
    } catch (err) {
      const e = err as ServiceError;
      // the HTTP status Triton's HTTP front end answers for the same error (for reports); a status grpc-js
      // raised itself (deadline, message size) stands for no Triton code: 500
      const code = codeOfGrpcStatus(e.code);
      return { ok: false, status: code ? httpStatusOfCode(code) : 500, error: e.details ?? e.message };
    }
  }

  close(): void {
    this.client.close();
  }
}

export function inferRequest(call: InferCall, inputs: Tensor[]): object {
  const parameters: Record<string, object> = {};
  if (call.priority !== undefined) parameters.priority = { uint64_param: String(call.priority) };
  if (call.timeoutUs !== undefined) parameters.timeout = { uint64_param: String(call.timeoutUs) };
  if (call.sequence) {
    // Triton's gRPC front end takes a correlation id as int64_param or string_param (not uint64_param)
    const id = call.sequence.id;
    parameters.sequence_id = typeof id === 'string' ? { string_param: id } : { int64_param: String(id) };
    if (call.sequence.start) parameters.sequence_start = { bool_param: true };
    if (call.sequence.end) parameters.sequence_end = { bool_param: true };
  }
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
