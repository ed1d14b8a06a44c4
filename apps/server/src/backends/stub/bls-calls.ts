/**
 * A model's BLS call (protocol-calls.ts `bls`) run by the server: the request is checked by the same codec
 * as a client's (datatypes, shapes, batch size) and enters the called model's own scheduler, so it batches
 * with other traffic and is seen by statistics, metrics and traces like any request. It is announced as a
 * child of the request the calling model was handling (an `ensemble.step` event with `via: 'bls'`, the
 * link the dashboard and the tracer follow for ensemble steps).
 *
 * Every call gets an answer: the outputs, or the error as Triton's python backend hands it to the model
 * (InferenceResponse.has_error()): an unknown or unready model, a refused input, a queue timeout, a failed
 * batch, a call nested deeper than MAX_BLS_DEPTH, or the call's own `timeout` passing. A decoupled call
 * (`exec(decoupled=True)`) streams each response of a decoupled model and ends with a final one.
 *
 * A call ends early, answered at once and its request cancelled wherever it is (still queued: taken out;
 * running: the called model's executor sees `payload.cancelled`, a python model's request.is_cancelled()),
 * when its `timeout` passes, when the calling request is cancelled or fails before its end (the parent's
 * `children` signal), or when model.py cancels it (`bls_response_iterator.cancel()`, the `blsCancel`
 * message). Triton applies the timeout only while the request is queued (and only under a queue policy
 * with allow_timeout_override) and leaves a parent's cancellation to model.py; InferScope makes both a
 * bound on the whole call, so no BLS call outlives what asked for it.
 */
import type { SchedulerRequest, Tensor } from '@inferscope/core';
import { timerDelayMs } from '@inferscope/core/clock';
import { encodeBinaryData } from '../../infer/binary-data';
import { modelSpecFor } from '../../infer/model-spec';
import type { ParsedRequest } from '../../infer/parsed-request';
import { toSchedulerRequest, validateInferRequest } from '../../infer/validate-request';
import { isDecoupled, type ResponseStream, type StreamingPayload } from '../../infer/response-stream';
import { ClientGone, type CancelSignal } from '../../infer/cancellable';
import { asInferError, errors, type InferError } from '@inferscope/core';
import { describeChain, type CallChain } from '../../infer/call-chain';
import type { BlsCall, ToStubCall } from './protocol-calls';
import type { ServerCalls } from './server-calls';
import { readTensor } from './tensors';

/**
 * How deep BLS calls may nest (a model calling a model calling ...), counted along the call's chain
 * (infer/call-chain.ts) on every path: from execute(), from a decoupled model's response thread, through
 * an ensemble. Triton sets no bound; a model that calls itself from a response thread would recurse for
 * ever, so InferScope refuses the call instead. (A call that would wait for an instance its own chain
 * holds is refused at once by the deadlock check, before this bound is reached.)
 */
export const MAX_BLS_DEPTH = 8;

/** The request the calling model was handling (undefined when it called from elsewhere, e.g. initialize()). */
export interface BlsParent {
  model: string;
  version: string;
  request: SchedulerRequest<StreamingPayload>;
  /** fires when that request is cancelled or fails before its end */
  children?: CancelSignal;
}

export type BlsReply = (message: Extract<ToStubCall, { type: 'blsResponse' }>, tensors?: readonly Tensor[]) => void;

let seq = 0;

/**
 * Runs one call; returns what cancels it (model.py's cancel(), a no-op once the call was answered). The
 * call's request is cancelled through `signal`, which ModelManager.infer hands on to its executor.
 * `chain`: the requests above the call, the calling one last (StubRuns.chainOf); undefined when the
 * calling stub works on no request (a call from initialize()).
 */
export function runBlsCall(calls: ServerCalls, call: BlsCall, body: Uint8Array, parent: BlsParent | undefined, chain: CallChain | undefined, reply: BlsReply): () => void {
  let answered = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let unlisten: (() => void) | undefined;
  let request: SchedulerRequest<StreamingPayload> | undefined;
  const signal = new ClientGone();
  const end = (message: Omit<Extract<ToStubCall, { type: 'blsResponse' }>, 'type' | 'call'>, tensors?: readonly Tensor[]): void => {
    if (answered) return;
    if (message.final) {
      answered = true;
      clearTimeout(timer);
      unlisten?.();
    }
    reply({ type: 'blsResponse', call: call.call, ...message }, tensors);
  };
  const fail = (err: unknown): void => {
    const e = asInferError(err);
    end({ final: true, error: e.message, code: e.code });
  };
  /** answers the call with `error` and cancels its request wherever it is */
  const stop = (error: InferError): void => {
    if (answered) return;
    fail(error);
    signal.abort();
    request?.payload.stream?.cancel?.();
  };
  try {
    if (chain !== undefined && chain.length > MAX_BLS_DEPTH) {
      end({ final: true, error: `BLS calls nest deeper than ${MAX_BLS_DEPTH} levels: ${describeChain(chain, call.model)}`, code: 'INVALID_ARG' });
      return noop;
    }
    if (parent?.children?.aborted) {
      stop(errors.CLIENT_CANCELLED(`BLS call to model '${call.model}' cancelled: the request of model '${parent.model}' that made it was cancelled`));
      return noop;
    }
    const served = calls.manager.require(call.model, call.version);
    const targetDecoupled = isDecoupled(served.config);
    if (targetDecoupled && !call.decoupled) {
      end({ final: true, error: `model '${served.name}' is decoupled (it may send any number of responses): call it with exec(decoupled=True)`, code: 'INVALID_ARG' });
      return noop;
    }
    const spec = modelSpecFor(served.name, served.version, served.config);
    const parsed: ParsedRequest = {
      inputs: call.inputs.map((w) => {
        const t = readTensor(w, body, `BLS input '${w.name}'`);
        return { name: t.name, datatype: t.datatype, shape: t.shape, binary: encodeBinaryData(t.datatype, t.data) };
      }),
      outputs: call.outputs.length > 0 ? call.outputs.map((name) => ({ name })) : undefined,
      binaryOutput: true,
    };
    const decoded = validateInferRequest(parsed, spec);
    const req = toSchedulerRequest(decoded) as SchedulerRequest<StreamingPayload>;
    request = req;
    if (chain !== undefined) req.payload.callChain = chain;
    if (call.timeoutUs !== undefined && call.timeoutUs > 0) {
      req.timeoutUs = call.timeoutUs; // the called model's queue policy reads it too (allow_timeout_override)
      timer = setTimeout(() => stop(errors.TIMEOUT()), timerDelayMs(Math.max(1, Math.ceil(call.timeoutUs / 1000))));
      timer.unref?.();
    }
    if (parent) {
      req.id = `${parent.request.id}/bls${++seq}`;
      calls.bus.emit({
        type: 'ensemble.step', t: calls.now(), model: served.name, version: served.version, request_id: req.id, step: -1, via: 'bls',
        parent: { model: parent.model, version: parent.version, request_id: parent.request.id ?? '' },
      });
      unlisten = parent.children?.onAbort(() =>
        stop(errors.CLIENT_CANCELLED(`BLS call to model '${served.name}' cancelled: the request of model '${parent.model}' that made it was cancelled or failed`)));
    }
    let settle: (outputs: Tensor[]) => void = (outputs) => end({ final: true }, outputs);
    if (targetDecoupled) {
      const stream: ResponseStream = {
        // handed to the calling stub at once (its channel): that stub holds what its model has not read yet
        response: (outputs, final, error, left) => {
          end(error ? { final, error: error.message, code: error.code } : { final }, outputs ?? []);
          left?.();
        },
        fail,
      };
      req.payload.stream = stream;
      settle = () => undefined; // the stream ends the call
    } else if (call.decoupled) {
      settle = (outputs) => {
        end({ final: false }, outputs);
        end({ final: true });
      };
    }
    calls.manager.infer(served.name, served.version, req, signal).then((outputs) => settle(outputs), fail);
  } catch (err) {
    fail(err);
  }
  return () => stop(errors.CLIENT_CANCELLED(`BLS call to model '${call.model}' cancelled by the calling model`));
}

const noop = (): void => undefined;
