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
  return new Promise<void>((resolve, reject) => new StreamedCall(call, onResponse, single, resolve, reject).run(deps));
}

/**
 * One streamed request's stream and its one settlement. A class, not closures made per request: under
 * tsx each closure bound to a name pays a defineProperty (ARCHITECTURE.md, hot paths).
 */
class StreamedCall implements ResponseStream {
  private settled = false;
  private served: ServedModelView | undefined;
  private request: DecodedInferRequest | undefined;
  private stopListening: (() => void) | undefined;
  /** set by the executor while the model may still send */
  cancel?: () => void;

  constructor(
    private readonly call: Omit<InferCall, 'stream' | 'accepted'>,
    private readonly onResponse: (r: StreamedResponse) => void,
    readonly single: boolean,
    private readonly resolve: () => void,
    private readonly reject: (err: unknown) => void,
  ) {}

  response(outputs: Tensor[] | null, final: boolean, error?: InferError, left: () => void = noop): void {
    const { served, request } = this;
    if (this.settled || !served || !request) return left();
    const wanted = request.outputs;
    const picked = !outputs ? [] : wanted ? outputs.filter((t) => wanted.includes(t.name)) : outputs;
    this.onResponse({ served, request, outputs: picked, final, error, empty: outputs === null && !error, left });
    if (final) this.finish();
  }

  fail(err: Error): void {
    this.finish(asInferError(err));
  }

  run(deps: InferServiceDeps): void {
    const { call } = this;
    this.stopListening = call.signal?.onAbort(() => {
      this.cancel?.();
      this.finish(errors.CLIENT_CANCELLED('the client cancelled the request'));
    });
    const self = this;
    // not a spread: the caller's call may be a class whose decode() lives on its prototype
    runInference(deps, {
      protocol: call.protocol,
      model: call.model,
      version: call.version,
      signal: call.signal,
      charge: call.charge,
      decode(spec) {
        return call.decode(spec);
      },
      stream: this,
      accepted(s, r) {
        self.served = s;
        self.request = r;
      },
    }).then(
      (outcome) => {
        // a decoupled model's execute() returned: its responses come (or came) through the stream
        if (isDecoupled(outcome.served.config) || this.settled) return;
        this.onResponse({ served: outcome.served, request: outcome.request, outputs: outcome.outputs, final: true, empty: false, left: noop });
        this.finish();
      },
      (err: unknown) => this.finish(err),
    );
  }

  private finish(err?: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.stopListening?.();
    if (err) this.reject(err);
    else this.resolve();
  }
}
