// KServe v2 inference front end: codec (pure functions) and the Fastify routes.
export { registerInferRoutes, DEFAULT_INFER_BODY_LIMIT, type InferRoutesOptions } from './routes';
export { resolveModel, type InferModelSource, type ServedModelView } from './resolve-model';
export { invalid } from './errors';
export { buildModelSpec, modelSpecFor, type ModelSpec, type IOSpec } from './model-spec';
export { parseInferRequest, parseHeaderLength, type ParsedRequest } from './parse-request';
export { validateInferRequest, toSchedulerRequest, type DecodedInferRequest } from './validate-request';
export { encodeInferResponse, type EncodedResponse } from './encode-response';
export { floatToHalf, halfToFloat } from './datatypes';
