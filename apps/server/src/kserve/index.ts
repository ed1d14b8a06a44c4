// KServe v2 inference, shared by HTTP and gRPC: the codec (pure functions), request resolution and errors. Its HTTP routes are http/kserve-routes.ts.
export { resolveModel, type InferModelSource, type ServedModelView } from './resolve-model';
export { invalid } from './errors';
export { buildModelSpec, modelSpecFor, type ModelSpec, type IOSpec } from './model-spec';
export { parseInferRequest, parseHeaderLength, type ParsedRequest } from './parse-request';
export { validateInferRequest, toSchedulerRequest, type DecodedInferRequest } from './validate-request';
export { encodeInferResponse, type EncodedResponse } from './encode-response';
export { floatToHalf, halfToFloat } from './datatypes';
