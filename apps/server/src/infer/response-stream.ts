/**
 * Requests that answer many times: a decoupled model (Triton's `model_transaction_policy { decoupled:
 * true }`) sends 0..n responses per request, the last one flagged final. The front end that takes such a
 * request (gRPC ModelStreamInfer, HTTP generate / generate_stream, a decoupled BLS call) puts a
 * ResponseStream in the request's payload; the model's executor feeds it (backends/stub/decoupled-runs.ts).
 * The scheduler's own answer to the request comes when the model's execute() returns (the instance is
 * free again then, as in Triton); the stream ends with its final response or an error.
 */
import type { InferError, InferPayload, Tensor } from '@inferscope/core';
import { isDecoupled } from '@inferscope/core/config';
import type { CancellablePayload } from './cancellable';
import type { ChainedPayload } from './call-chain';

export interface ResponseStream {
  /**
   * One response: its outputs (null with `final` when the model sent only the final flag), or the error
   * the model put in it (the stream goes on unless `final`). `left`, when given, must be called once the
   * response no longer waits in the server (written to the client's socket or HTTP/2 stream, taken into
   * an answer, or dropped): until then it counts against the model's send window
   * (backends/stub/send-window.ts), so a client that does not read slows the model down.
   */
  response(outputs: Tensor[] | null, final: boolean, error?: InferError, left?: () => void): void;
  /** The request failed before its final response (the model's batch failed, timed out, the stub died). */
  fail(error: Error): void;
  /**
   * The front end takes one answer (HTTP generate): a model that can give all of it in one response (an
   * iterative generator: the whole text, unless the request asks to stream) does.
   */
  readonly single?: boolean;
  /** Set by the executor while the model may still send: call it when the client went away. */
  cancel?: () => void;
}

/** The payload of a request that may carry a stream, and how deep in BLS calls it was made. */
export interface StreamingPayload extends InferPayload, CancellablePayload, ChainedPayload {
  stream?: ResponseStream;
}

/** core's rule, where the front ends that take streams have always found it */
export { isDecoupled };
