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
 */
import type { SchedulerRequest, Tensor } from '@inferscope/core';
import { encodeBinaryData } from '../../kserve/binary-data';
import { modelSpecFor } from '../../kserve/model-spec';
import type { ParsedRequest } from '../../kserve/parse-request';
import { toSchedulerRequest, validateInferRequest } from '../../kserve/validate-request';
import { isDecoupled, type ResponseStream, type StreamingPayload } from '../../kserve/response-stream';
import { ClientGone } from '../../models/cancellable';
import { asInferError, errors as inferErrors } from '@inferscope/core';
import type { BlsCall, ToStubCall } from './protocol-calls';
import type { ServerCalls } from './server-calls';
import { readTensor } from './tensors';

/**
 * How deep BLS calls may nest (a model calling a model calling ...). Triton sets no bound; a model that
 * calls itself would then hold every instance and never answer, so InferScope refuses the call instead.
 */
export const MAX_BLS_DEPTH = 8;

/** The request the calling model was handling (undefined when it called from elsewhere, e.g. initialize()). */
export interface BlsParent {
  model: string;
  version: string;
  request: SchedulerRequest<StreamingPayload>;
}

export type BlsReply = (message: Extract<ToStubCall, { type: 'blsResponse' }>, tensors?: readonly Tensor[]) => void;

let seq = 0;

export function runBlsCall(calls: ServerCalls, call: BlsCall, body: Uint8Array, parent: BlsParent | undefined, reply: BlsReply): void {
  let answered = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const signal = new ClientGone();
  const end = (message: Omit<Extract<ToStubCall, { type: 'blsResponse' }>, 'type' | 'call'>, tensors?: readonly Tensor[]): void => {
    if (answered) return;
    if (message.final) {
      answered = true;
      clearTimeout(timer);
    }
    reply({ type: 'blsResponse', call: call.call, ...message }, tensors);
  };
  const fail = (err: unknown): void => {
    const e = asInferError(err);
    end({ final: true, error: e.message, code: e.code });
  };
  try {
    const depth = (parent?.request.payload.blsDepth ?? 0) + 1;
    if (depth > MAX_BLS_DEPTH) {
      return end({ final: true, error: `BLS calls nest deeper than ${MAX_BLS_DEPTH} levels (model '${call.model}' called from '${parent?.model}')`, code: 'INVALID_ARG' });
    }
    const served = calls.manager.require(call.model, call.version);
    const targetDecoupled = isDecoupled(served.config);
    if (targetDecoupled && !call.decoupled) {
      return end({ final: true, error: `model '${served.name}' is decoupled (it may send any number of responses): call it with exec(decoupled=True)`, code: 'INVALID_ARG' });
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
    req.payload.blsDepth = depth;
    if (call.timeoutUs !== undefined && call.timeoutUs > 0) {
      req.timeoutUs = call.timeoutUs;
      // the call's own bound, wherever the request is then (queued: taken out; running: answer dropped)
      timer = setTimeout(() => {
        fail(inferErrors.TIMEOUT());
        signal.abort();
        req.payload.stream?.cancel?.();
      }, Math.max(1, Math.ceil(call.timeoutUs / 1000)));
      timer.unref?.();
    }
    if (parent) {
      req.id = `${parent.request.id}/bls${++seq}`;
      calls.bus.emit({
        type: 'ensemble.step', t: calls.now(), model: served.name, version: served.version, request_id: req.id, step: -1, via: 'bls',
        parent: { model: parent.model, version: parent.version, request_id: parent.request.id ?? '' },
      });
    }
    let settle: (outputs: Tensor[]) => void = (outputs) => end({ final: true }, outputs);
    if (targetDecoupled) {
      const stream: ResponseStream = {
        response: (outputs, final, error) => end(error ? { final, error: error.message, code: error.code } : { final }, outputs ?? []),
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
}
