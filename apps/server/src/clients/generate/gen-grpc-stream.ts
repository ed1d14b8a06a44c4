/**
 * One generation over gRPC `ModelStreamInfer` (Triton's streaming RPC, as tritonclient.grpc's
 * start_stream / async_stream_infer send it): `text_input` (BYTES) and `max_tokens` (INT32) as raw
 * contents, one stream per request, half-closed once the request is written; every response that carries
 * an output is one token, a response with `error_message` fails the request. Timed as gen-stream.ts times
 * the HTTP stream, so both protocols give the same figures.
 */
import { credentials, type Client, type ClientDuplexStream } from '@grpc/grpc-js';
import { inferenceService } from '../../grpc/proto';
import type { GenRecord, GenSend } from './gen-stream';

interface StreamResponse {
  error_message?: string;
  infer_response?: { raw_output_contents?: Uint8Array[]; outputs?: unknown[] };
}

type Stub = Client & { ModelStreamInfer(): ClientDuplexStream<object, StreamResponse> };

/** A BYTES element on the wire: its 4-byte little-endian length, then the bytes. */
function bytesElement(text: string): Buffer {
  const body = Buffer.from(text, 'utf8');
  const len = Buffer.alloc(4);
  len.writeUInt32LE(body.length);
  return Buffer.concat([len, body]);
}

function int32(v: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeInt32LE(v);
  return b;
}

/** A sender to one model's ModelStreamInfer at `address` (host:port); close() when done. */
export function grpcGenerateStream(address: string, model: string, version?: string, now: () => number = () => performance.now()): GenSend & { close(): void } {
  const Ctor = inferenceService();
  const client = new Ctor(address, credentials.createInsecure(), { 'grpc.max_receive_message_length': -1 }) as unknown as Stub;
  let seq = 0;
  const send: GenSend = (ask) => new Promise<GenRecord>((resolve) => {
    const sentMs = now();
    const tokenMs: number[] = [];
    let error: string | undefined;
    const stream = client.ModelStreamInfer();
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      resolve({ sentMs, tokenMs, endMs: now(), inputTokens: ask.inputTokens, ...(error !== undefined ? { error } : {}) });
    };
    stream.on('data', (r: StreamResponse) => {
      if (r.error_message) error ??= r.error_message;
      else if ((r.infer_response?.raw_output_contents?.length ?? 0) > 0 || (r.infer_response?.outputs?.length ?? 0) > 0) tokenMs.push(now());
    });
    stream.on('error', (e: Error) => {
      error ??= e.message;
      end();
    });
    stream.on('end', end);
    stream.write({
      model_name: model, model_version: version ?? '', id: `perf-${++seq}`,
      inputs: [{ name: 'text_input', datatype: 'BYTES', shape: [1] }, { name: 'max_tokens', datatype: 'INT32', shape: [1] }],
      raw_input_contents: [bytesElement(ask.text), int32(ask.maxTokens)],
    });
    stream.end();
  });
  return Object.assign(send, { close: () => client.close() });
}
