/**
 * A real grpc-js client for the tests, built from the server's own .proto files (apps/server/src/grpc/
 * proto) with the same loader options: what a tritonclient.grpc user's generated stub sends and reads.
 * Each RPC as a promise; errors reject with the ServiceError (code + details).
 */
import { credentials, type Client, type ServiceError } from '@grpc/grpc-js';
import { inferenceService } from '../../apps/server/src/grpc/proto';

export type Rpc = (req: object, options?: { deadline?: number }) => Promise<any>;  

export interface TestGrpcClient {
  raw: Client & Record<string, any>;  
  call(method: string, req?: object): Promise<any>;  
  close(): void;
}

export function grpcClient(address: string, options: Record<string, number> = {}): TestGrpcClient {
  const Ctor = inferenceService();
  const raw = new Ctor(address, credentials.createInsecure(), options) as TestGrpcClient['raw'];
  return {
    raw,
    call: (method, req = {}) =>
      new Promise((resolve, reject) => {
        raw[method](req, (err: ServiceError | null, res: unknown) => (err ? reject(err) : resolve(res)));
      }),
    close: () => raw.close(),
  };
}

/** FP32 raw bytes of a Float32Array, as tritonclient's set_data_from_numpy sends them. */
export function rawFp32(a: Float32Array): Buffer {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength);
}

export function fp32FromRaw(b: Uint8Array): Float32Array {
  const copy = new Uint8Array(b); // aligned copy
  return new Float32Array(copy.buffer, 0, copy.byteLength / 4);
}

/** A generate request over gRPC: `text_input` and `max_tokens` as raw tensors, as a Triton client sends them. */
export function grpcGenerateAsk(model: string, id: string, prompt: string, maxTokens: number): object {
  const text = Buffer.from(prompt);
  const len = Buffer.alloc(4);
  len.writeUInt32LE(text.length);
  const max = Buffer.alloc(4);
  max.writeInt32LE(maxTokens);
  return {
    model_name: model, id,
    inputs: [{ name: 'text_input', datatype: 'BYTES', shape: [1] }, { name: 'max_tokens', datatype: 'INT32', shape: [1] }],
    raw_input_contents: [Buffer.concat([len, text]), max],
  };
}

/** Sends `messages` on one ModelStreamInfer stream and ends it; resolves with every response once the server ended the stream. */
export function streamInferAll(client: TestGrpcClient, messages: readonly object[]): Promise<{ error_message: string }[]> {
  const stream = client.raw.ModelStreamInfer();
  const got: { error_message: string }[] = [];
  const ended = new Promise<{ error_message: string }[]>((resolve, reject) => {
    stream.on('data', (m: { error_message: string }) => got.push(m));
    stream.on('end', () => resolve(got));
    stream.on('error', (e: Error) => reject(e));
  });
  for (const m of messages) stream.write(m);
  stream.end();
  return ended;
}
