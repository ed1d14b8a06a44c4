/**
 * gRPC's share of --max-inflight-bytes (http/inflight-bytes.ts): the same InflightBytes object that
 * charges HTTP bodies charges every ModelInfer message (unary or on a stream) from the moment its handler
 * runs until it is answered, and refuses one past the limit with UNAVAILABLE (HTTP's 503: nothing was
 * queued, the client may retry).
 *
 * grpc-js reads and decodes a message before any handler sees it (its size is capped by
 * grpc.max_receive_message_length, the HTTP body limit), so the charge is computed from the decoded
 * message: the tensor bytes it holds times the cost of decoding them, as HTTP charges Content-Length.
 */
import { BINARY_COST_FACTOR, admit, overLimitMessage, type Held, type InflightBytes } from '../http/inflight-bytes';
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

/** The message's charge, or the refusal (UNAVAILABLE) to answer it with. */
export function admitGrpcMessage(budget: InflightBytes, msg: GrpcInferRequest): Held | InferError {
  return admit(budget, grpcMessageCharge(msg)) ?? new InferError('UNAVAILABLE', overLimitMessage(budget.limit));
}
