/**
 * ModelStreamInferResponse messages for the responses of one streamed request, as Triton's gRPC front end
 * writes them: each response is an infer_response (an error response an error_message); a request that
 * sets the bool parameter `triton_enable_empty_final_response` (tritonclient's
 * `enable_empty_final_response=True`) also gets the final flag as a response of its own when the model
 * sent it without data, and then every response says whether it is the last in the parameter
 * `triton_final_response`. Without it, an empty final response is not sent.
 */
import { ENABLE_EMPTY_FINAL, grpcInferResponse, type GrpcInferRequest } from './codec';
import type { StreamedResponse } from '../infer/stream-inference';

export const FINAL_RESPONSE = 'triton_final_response';

export function asksForEmptyFinal(msg: GrpcInferRequest): boolean {
  const p = msg.parameters?.[ENABLE_EMPTY_FINAL];
  return p?.parameter_choice === 'bool_param' && p.bool_param === true;
}

export function streamResponse(r: StreamedResponse, wantsFinal: boolean): unknown {
  if (r.empty && !wantsFinal) return undefined;
  const flag = wantsFinal ? { [FINAL_RESPONSE]: { bool_param: r.final } } : undefined;
  if (r.error) {
    return { error_message: r.error.message, infer_response: { model_name: r.served.name, model_version: r.served.version, id: r.request.id ?? '', ...(flag ? { parameters: flag } : {}) } };
  }
  const res = grpcInferResponse(r.served.name, r.served.version, r.request.id, r.outputs, undefined, r.request.shmOutputs) as Record<string, unknown>;
  if (flag) res.parameters = { ...((res.parameters as object) ?? {}), ...flag };
  return { error_message: '', infer_response: res };
}
