/**
 * gRPC's share of --max-inflight-bytes (infer/inflight-bytes.ts): the same InflightBytes object that
 * charges HTTP bodies charges every ModelInfer message (unary or on a stream) from the moment its handler
 * runs until it is answered, and refuses one past the limit with UNAVAILABLE (HTTP's 503: nothing was
 * queued, the client may retry).
 *
 * A unary call (grpc/direct-unary.ts) is charged from its message's 5-byte length prefix, before one byte
 * of the message is buffered: length x BINARY_COST_FACTOR (the bytes, and the tensors decoded from them).
 * Its ModelInfer handler keeps that charge, grown to the decoded message's when that is more. A stream's
 * messages are charged by grpc/stream-admission.ts from their prefixes the same way while grpc-js reads
 * them, and each decoded one is then charged here from what it holds (as HTTP charges Content-Length).
 */
import { BINARY_COST_FACTOR, admit, overLimitMessage, type Held, type InflightBytes } from '../infer/inflight-bytes';
import { InferError } from '@inferscope/core';
import type { GrpcInferRequest } from './codec';

/**
 * A typed `contents` element is a JS number in an array (8 bytes) and then an element of the decoded
 * typed array (up to 8): 16 bytes charged per element, whatever its wire size.
 */
const CONTENTS_ELEMENT_COST = 16;

/** The bytes one decoded ModelInferRequest holds, and what decoding it into tensors adds. */
export function grpcMessageCharge(msg: GrpcInferRequest): number {
  let raw = 0;
  for (const r of msg.raw_input_contents ?? []) raw += r.byteLength;
  let elements = 0;
  for (const io of msg.inputs ?? []) {
    const c = io.contents;
    if (!c) continue;
    elements += c.bool_contents.length + c.int_contents.length + c.int64_contents.length + c.uint_contents.length
      + c.uint64_contents.length + c.fp32_contents.length + c.fp64_contents.length;
    for (const b of c.bytes_contents) raw += b.byteLength + 4;
  }
  return raw * BINARY_COST_FACTOR + elements * CONTENTS_ELEMENT_COST;
}

/** A call whose message was charged from its length prefix before it was read (grpc/direct-unary.ts). */
export interface PrefixCharged {
  /** the charge, now the caller's to release (undefined when there is none, or it was taken) */
  takePrefixCharge(): Held | undefined;
}

function refusal(budget: InflightBytes): InferError {
  return new InferError('UNAVAILABLE', overLimitMessage(budget.limit));
}

/** A message of `length` bytes announced by its prefix: its charge, or the refusal, before it is read. */
export function admitDeclaredMessage(budget: InflightBytes, length: number): Held | InferError {
  return admit(budget, length * BINARY_COST_FACTOR) ?? refusal(budget);
}

/**
 * The message's charge, or the refusal (UNAVAILABLE) to answer it with. A call charged from its prefix
 * keeps that charge (its bytes are already here: refused only if decoding needs more than there is).
 */
export function admitGrpcMessage(budget: InflightBytes, msg: GrpcInferRequest, call?: unknown): Held | InferError {
  const bytes = grpcMessageCharge(msg);
  const prefix = (call as Partial<PrefixCharged> | undefined)?.takePrefixCharge?.();
  if (prefix === undefined) return admit(budget, bytes) ?? refusal(budget);
  if (bytes <= prefix.bytes || prefix.grow(bytes - prefix.bytes)) return prefix;
  prefix.release();
  return refusal(budget);
}
