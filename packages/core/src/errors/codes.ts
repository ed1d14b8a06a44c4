/**
 * Triton's eight error codes (TRITONSERVER_Error_Code), the one vocabulary every refusal and failure of
 * InferScope is stated in, whatever raised it (routes, validation, the model manager, the scheduler, a
 * backend, a python model's pb_utils.TritonError) and whatever protocol answers it. Listed in Triton's
 * numeric order: a code's index is its value in the C API and in pb_utils.TritonError.
 */
export const ERROR_CODES = ['UNKNOWN', 'INTERNAL', 'NOT_FOUND', 'INVALID_ARG', 'UNAVAILABLE', 'UNSUPPORTED', 'ALREADY_EXISTS', 'CANCELLED'] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/**
 * The code a peer sent, by name ('NOT_FOUND') or by Triton's number (2), as the python stub passes
 * pb_utils.TritonError.code() on. Anything else is INTERNAL: the peer failed to say what went wrong.
 */
export function errorCodeOf(value: unknown): ErrorCode {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value < ERROR_CODES.length) return ERROR_CODES[value];
  if (typeof value === 'string' && (ERROR_CODES as readonly string[]).includes(value)) return value as ErrorCode;
  return 'INTERNAL';
}

/**
 * HTTP status of each code, as Triton's HTTP front end answers it (HttpCodeFromError in
 * server/src/http_server.cc): the codes without an HTTP counterpart are all 400.
 */
const HTTP_STATUS: Record<ErrorCode, number> = {
  INTERNAL: 500,
  NOT_FOUND: 404,
  UNAVAILABLE: 503,
  UNSUPPORTED: 501,
  UNKNOWN: 400,
  INVALID_ARG: 400,
  ALREADY_EXISTS: 400,
  CANCELLED: 400,
};

export function httpStatusOfCode(code: ErrorCode): number {
  return HTTP_STATUS[code];
}
