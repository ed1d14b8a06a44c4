// Triton's error codes, the one error class, and the messages raised in more than one place.
export { ERROR_CODES, errorCodeOf, httpStatusOfCode, type ErrorCode } from './codes';
export { InferError, codeOf, asInferError, TRANSPORT_STATUSES, type TransportStatus } from './infer-error';
export { errors } from './messages';
