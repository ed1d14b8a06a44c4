/**
 * The messages of the stub wire (protocol.ts) that are not batches: calls a running model makes INTO the
 * server, and the responses a decoupled model sends on its own. Kept apart from the batch messages so that
 * each concern reads in one place; protocol.ts joins them into the one StubMessage union.
 *
 * stub -> server
 * - `bls`: an inference request to any model of the server (Triton's BLS), its tensors in the frame body;
 *   answered by one `blsResponse` (final), or by several when `decoupled` (the last has final: true).
 * - `response`: one response of a decoupled model to request `index` of batch `run` (its tensors in the
 *   body), `final` when the model sent TRITONSERVER_RESPONSE_COMPLETE_FINAL (possibly without outputs).
 * - `blsCancel`: model.py cancelled BLS call `call` (bls_response_iterator.cancel()); not answered beyond the
 *   call's own final `blsResponse` (a CANCELLED error, unless it had already ended).
 * - `metricFamily`, `metric`, `metricValue`: answered by `callReply` (an id, a value, or an error);
 *   `metricOp` updates a metric and is not answered (frames arrive in order, so a later value() sees it).
 *
 * server -> stub
 * - `blsResponse`, `callReply`: answers, by the stub's `call` id.
 * - `cancel`: request `index` of batch `run` was cancelled (its client went away, its BLS caller was
 *   cancelled or timed out, its final-response timeout passed): request.is_cancelled() and the model's
 *   sender's is_cancelled() turn true, and the sender drops further sends.
 * - `drained`: `n` more responses of decoupled request `index` of batch `run` have left the server for its
 *   client: the sender's window (send-window.ts) has room for as many again.
 */
import type { ErrorCode } from '@inferscope/core';
import type { WireTensor } from './wire-tensor';

export type MetricKind = 'counter' | 'gauge' | 'histogram';

export interface BlsCall {
  type: 'bls';
  call: number;
  model: string;
  version?: string;
  inputs: WireTensor[];
  outputs: string[];
  decoupled: boolean;
  /** Triton's BLS `timeout`, µs */
  timeoutUs?: number;
  /** the batch and request the model was handling when it made the call (its parent) */
  run?: number;
  index?: number;
  /**
   * made on a thread other than the one running execute() (a thread model.py started): for a decoupled
   * model, whose execute() may return while that thread goes on, the call does not count as holding the
   * parent's instance (infer/call-chain.ts)
   */
  detached?: boolean;
}

export interface BlsCancel {
  type: 'blsCancel';
  call: number;
}

export interface DecoupledResponse {
  type: 'response';
  run: number;
  index: number;
  final: boolean;
  outputs?: WireTensor[];
  error?: string;
  code?: ErrorCode;
}

export type MetricCall =
  | { type: 'metricFamily'; call: number; name: string; description: string; kind: MetricKind }
  | { type: 'metric'; call: number; family: number; labels: Record<string, string>; buckets?: number[] }
  | { type: 'metricValue'; call: number; metric: number };

export interface MetricOp {
  type: 'metricOp';
  metric: number;
  op: 'increment' | 'set' | 'observe';
  value: number;
}

export type FromStubCall = BlsCall | BlsCancel | DecoupledResponse | MetricCall | MetricOp;

export type ToStubCall =
  | { type: 'blsResponse'; call: number; final: boolean; outputs?: WireTensor[]; error?: string; code?: ErrorCode }
  | { type: 'callReply'; call: number; id?: number; value?: number; error?: string }
  | { type: 'cancel'; run: number; index: number }
  | { type: 'drained'; run: number; index: number; n: number };

export const TO_STUB_CALLS = ['blsResponse', 'callReply', 'cancel', 'drained'] as const satisfies readonly ToStubCall['type'][];
