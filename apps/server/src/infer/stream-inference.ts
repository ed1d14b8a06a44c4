/**
 * One request that may answer many times (gRPC ModelStreamInfer, HTTP generate_stream, generate): the
 * shared inference pipeline (runInference) with a ResponseStream in the payload. A decoupled model's
 * responses arrive through the stream until its final one; any other model answers once, and that answer
 * is its one, final response. The returned promise settles exactly once: when the final response has
 * been handed on, or with the request's error (refused, failed, timed out waiting for the final
 * response). Responses after that are dropped. `signal` firing cancels: a queued request is taken out,
 * a running decoupled model is told to stop sending (its sender sees is_cancelled()).
 */
import { asInferError, errors, type InferError, type Tensor } from '@inferscope/core';
import { runInference, type InferCall, type InferServiceDeps } from './run-inference';
import type { ServedModelView } from './resolve-model';
import type { DecodedInferRequest } from './validate-request';
import { isDecoupled, type ResponseStream } from './response-stream';

export interface StreamedResponse {
  served: ServedModelView;
  request: DecodedInferRequest;
  /** the requested outputs this response carries (all it carries when the request named none) */
  outputs: Tensor[];
  final: boolean;
  /** the error the model put in this response (the stream goes on unless final) */
  error?: InferError;
  /** a final flag with no response data (Triton's empty final response) */
  empty: boolean;
  /**
   * Call once this response has left the server (written to the client's stream, or dropped): the model's
   * sender waits while too many have not (backends/stub/send-window.ts). Calling it again does nothing.
   */
  left: () => void;
}

const noop = (): void => undefined;

export function streamInference(deps: InferServiceDeps, call: Omit<InferCall, 'stream' | 'accepted'>, onResponse: (r: StreamedResponse) => void, single = false): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let settled = false;
    let served: ServedModelView | undefined;
    let request: DecodedInferRequest | undefined;
    const finish = (err?: unknown): void => {
      if (settled) return;
      settled = true;
      stopListening?.();
      if (err) reject(err);
      else resolve();
    };
    const pick = (outputs: Tensor[]): Tensor[] => {
      const wanted = request?.outputs;
      return wanted ? outputs.filter((t) => wanted.includes(t.name)) : outputs;
    };
    const stream: ResponseStream = {
      response(outputs, final, error, left = noop) {
        if (settled || !served || !request) return left();
        onResponse({ served, request, outputs: outputs ? pick(outputs) : [], final, error, empty: outputs === null && !error, left });
        if (final) finish();
      },
      fail: (err) => finish(asInferError(err)),
      single,
    };
    const stopListening = call.signal?.onAbort(() => {
      stream.cancel?.();
      finish(errors.CLIENT_CANCELLED('the client cancelled the request'));
    });
    // not a spread: the caller's call may be a class whose decode() lives on its prototype
    runInference(deps, {
      protocol: call.protocol,
      model: call.model,
      version: call.version,
      signal: call.signal,
      charge: call.charge,
      decode: (spec) => call.decode(spec),
      stream,
      accepted(s, r) {
        served = s;
        request = r;
      },
    }).then(
      (outcome) => {
        // a decoupled model's execute() returned: its responses come (or came) through the stream
        if (isDecoupled(outcome.served.config) || settled) return;
        onResponse({ served: outcome.served, request: outcome.request, outputs: outcome.outputs, final: true, empty: false, left: noop });
        finish();
      },
      (err) => finish(err),
    );
  });
}
