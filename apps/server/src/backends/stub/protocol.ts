/**
 * The wire contract between the server and a stub process (one Python process per instance, as in
 * Triton's python backend). Both directions share ONE message union (`StubMessage`); `ToStub` and
 * `FromStub` are its two halves, and apps/server/python/inferscope_stub/wire.py reads and writes the same
 * frames.
 *
 * Frame (both directions, little-endian), on the stub's fd 3 (a socket pair; stdout/stderr stay free for
 * the model's own prints, which go to the server log; fd 4 holds the claim words, claim-region.ts):
 *
 *   u32 header length H | u32 body length B | H bytes of UTF-8 JSON (the message), space-padded so that
 *   8 + H is a multiple of 8 | B bytes of body: the raw bytes of every tensor, each at an offset that is a
 *   multiple of 8 (so both sides can view them as typed arrays without copying)
 *
 * JSON carries only the small metadata (names, shapes, offsets); tensor data never goes through JSON.
 * BYTES tensors are KServe's binary form: per element a u32 length and that many bytes.
 */
import type { KServeDatatype, Tensor } from '@inferscope/core';
import type { FromStubCall, ToStubCall } from './protocol-calls';
import type { WireTensor } from './wire-tensor';

export type { WireTensor } from './wire-tensor';

/** One inference request as the stub sees it (a pytorch batch is one merged request). */
export interface WireRequest {
  inputs: WireTensor[];
  /** outputs the request asked for; [] = all */
  outputs: string[];
  /** the scheduler's request id (Triton's request_id()) */
  id?: string;
}

/**
 * One request's answer: its output tensors, or the error the model gave for that request alone (a python
 * model's `InferenceResponse(error=TritonError(...))`), which fails that request and no other. `code` is
 * what TritonError.code() gave, passed on as it is (Triton's number, or a name): core's errorCodeOf reads it.
 */
export type WireResponse = { outputs: WireTensor[]; error?: undefined } | { error: string; code?: number | string; outputs?: undefined };

/** What the stub needs to load its model (sent once, first). */
export interface StubInit {
  type: 'init';
  /** which runner the stub uses: TorchScript (`pytorch`) or Triton's model.py API (`python`) */
  backend: 'pytorch' | 'python';
  modelFile: string;
  model: string;
  version: string;
  /** <repository>/<model> (Triton's args['model_repository']) */
  modelDir: string;
  instance: string;
  /** 'cpu' or 'gpu<N>', as the scheduler assigned it */
  device: string;
  kind: string;
  /** the model config as Triton's JSON (what `args['model_config']` holds, as an object) */
  config: Record<string, unknown>;
  /** backend-specific settings worked out by the server (pytorch: threads, inference mode, ...) */
  settings: Record<string, unknown>;
}

export type StubMessage =
  // server -> stub
  | StubInit
  | { type: 'run'; id: number; requests: WireRequest[] }
  | { type: 'close' }
  // stub -> server
  | {
      type: 'ready';
      /** where the model runs: 'cpu' or 'gpu<N>' (a GPU instance falls back to 'cpu' without CUDA) */
      device: string;
      /** e.g. "CUDA unavailable to torch: running on CPU" */
      note?: string;
      /** GPU memory torch holds for this process after loading (torch.cuda.memory_reserved) */
      torchGpuBytes?: number;
      /** versions of what the stub runs on, for the log */
      runtime: string;
    }
  | { type: 'initError'; message: string }
  /** inputUs / outputUs: the stub's side of compute_input / compute_output (decoding tensors, laying them out) */
  | { type: 'result'; id: number; responses: WireResponse[]; computeUs: number; inputUs?: number; outputUs?: number }
  | { type: 'runError'; id: number; message: string }
  /** before batch `id` the stub found it marked taken back: may it skip it? (claim-region.ts; callReply value 0 = skip) */
  | { type: 'claim'; call: number; id: number }
  // calls into the server, decoupled responses and their answers (protocol-calls.ts)
  | FromStubCall
  | ToStubCall;

export type ToStub = Extract<StubMessage, { type: 'init' | 'run' | 'close' }> | ToStubCall;
export type FromStub = Exclude<StubMessage, ToStub>;

/** A decoded frame: the message and the body its tensors point into. */
export interface Frame<M> {
  message: M;
  body: Uint8Array;
}

export const ALIGN = 8;
const pad = (n: number): number => (ALIGN - (n % ALIGN)) % ALIGN;
const PADDING = new Uint8Array(ALIGN);

/** The bytes of a tensor's data as laid out on the wire (a view for numeric data, a packed copy for BYTES). */
export type TensorBytes = (t: Tensor) => Uint8Array;

/**
 * Lays out tensors in a body: returns their WireTensor descriptors and the byte chunks (data and padding)
 * to write after the header, in order. Numeric data is not copied.
 */
export function layoutTensors(tensors: readonly Tensor[], bytesOf: TensorBytes, start = 0): { wire: WireTensor[]; chunks: Uint8Array[]; end: number } {
  const wire: WireTensor[] = [];
  const chunks: Uint8Array[] = [];
  let offset = start;
  for (const t of tensors) {
    const data = bytesOf(t);
    wire.push({ name: t.name, datatype: t.datatype, shape: t.shape, offset, bytes: data.byteLength });
    chunks.push(data);
    offset += data.byteLength;
    const p = pad(offset);
    if (p > 0) {
      chunks.push(PADDING.subarray(0, p));
      offset += p;
    }
  }
  return { wire, chunks, end: offset };
}

/** The frame's prefix and JSON header; the body chunks follow it on the wire. */
export function encodeHeader(message: ToStub | FromStub, bodyBytes: number): Uint8Array {
  const json = Buffer.from(JSON.stringify(message), 'utf8');
  const headerLength = json.byteLength + pad(8 + json.byteLength);
  const out = Buffer.alloc(8 + headerLength, 0x20);
  out.writeUInt32LE(headerLength, 0);
  out.writeUInt32LE(bodyBytes, 4);
  json.copy(out, 8);
  return out;
}

/** A frame whose prefix announces more than the reader's bound: the stream is not read further. */
export class FrameTooLargeError extends Error {
  constructor(
    readonly bytes: number,
    readonly bound: number,
  ) {
    super(`a frame of ${bytes} bytes, more than the ${bound} a stub may send (--max-inflight-bytes)`);
    this.name = 'FrameTooLargeError';
  }
}

/**
 * Reassembles frames from a byte stream. The 8-byte prefix gives the frame's size, which is checked against
 * `maxFrameBytes` before anything more is kept: a stub announcing more throws FrameTooLargeError and every
 * byte after it is dropped (the caller stops the stub). Each frame is copied once, as its bytes arrive, into
 * its own ArrayBuffer (offset 0), so tensors at 8-aligned body offsets can be viewed as typed arrays in
 * place, and a frame never sits in memory twice.
 */
export class FrameReader<M> {
  private readonly prefix = Buffer.alloc(8);
  private prefixFilled = 0;
  /** the frame being filled, once its prefix is in */
  private frame: Buffer | null = null;
  private filled = 0;
  private headerLength = 0;
  private broken = false;

  constructor(
    private readonly onFrame: (frame: Frame<M>) => void,
    private readonly maxFrameBytes = Infinity,
  ) {}

  push(chunk: Buffer): void {
    if (this.broken) return;
    let at = 0;
    while (at < chunk.byteLength || this.frame?.byteLength === this.filled) {
      if (this.frame === null) {
        const n = Math.min(8 - this.prefixFilled, chunk.byteLength - at);
        chunk.copy(this.prefix, this.prefixFilled, at, at + n);
        this.prefixFilled += n;
        at += n;
        if (this.prefixFilled < 8) return;
        this.startFrame();
      }
      const frame = this.frame!;
      const n = Math.min(frame.byteLength - this.filled, chunk.byteLength - at);
      chunk.copy(frame, this.filled, at, at + n);
      this.filled += n;
      at += n;
      if (this.filled === frame.byteLength) this.endFrame(frame);
    }
  }

  private startFrame(): void {
    this.headerLength = this.prefix.readUInt32LE(0);
    const total = 8 + this.headerLength + this.prefix.readUInt32LE(4);
    if (total > this.maxFrameBytes) {
      this.broken = true;
      throw new FrameTooLargeError(total, this.maxFrameBytes);
    }
    // unpooled: the frame owns its ArrayBuffer from offset 0; pages are touched only as bytes arrive
    this.frame = Buffer.allocUnsafeSlow(total);
    this.prefix.copy(this.frame, 0);
    this.filled = 8;
  }

  private endFrame(frame: Buffer): void {
    this.frame = null;
    this.prefixFilled = 0;
    const header = frame.subarray(8, 8 + this.headerLength).toString('utf8');
    let message: M;
    try {
      message = JSON.parse(header) as M;
    } catch (err) {
      this.broken = true; // the stream's framing can no longer be trusted
      throw err;
    }
    const body = new Uint8Array(frame.buffer, frame.byteOffset + 8 + this.headerLength, frame.byteLength - 8 - this.headerLength);
    this.onFrame({ message, body });
  }
}
