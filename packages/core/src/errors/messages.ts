/**
 * The errors InferScope raises in more than one place, worded once: each builder returns an InferError
 * with its Triton code. Where Triton has a message for the case its wording is kept, so users and
 * Triton's clients can match on it (its model repository manager prefixes lookups with "Request for
 * unknown model: "; its queue policy says "Exceeds maximum queue size" and "Request timeout expired").
 */
import { InferError } from './infer-error';

const define = <A extends unknown[]>(build: (...args: A) => InferError) => build;

export const errors = {
  // ---- model lookup (Triton's model repository manager) ----
  UNKNOWN_MODEL: define((model: string) => new InferError('NOT_FOUND', `Request for unknown model: '${model}' is not found`)),
  UNKNOWN_VERSION: define((model: string, version: number | string) => new InferError('NOT_FOUND', `Request for unknown model: '${model}' version ${version} is not found`)),
  NO_AVAILABLE_VERSION: define((model: string) => new InferError('NOT_FOUND', `Request for unknown model: '${model}' has no available versions`)),
  VERSION_NOT_READY: define((model: string, version: number | string) => new InferError('UNAVAILABLE', `Request for unknown model: '${model}' version ${version} is not at ready state`)),
  INVALID_VERSION: define((why: string) => new InferError('INVALID_ARG', why)),
  INVALID_MODEL_NAME: define((why: string) => new InferError('INVALID_ARG', why)),

  // ---- the scheduler's refusals (Triton's queue policy) ----
  QUEUE_FULL: define(() => new InferError('UNAVAILABLE', 'Exceeds maximum queue size')),
  TIMEOUT: define(() => new InferError('UNAVAILABLE', 'Request timeout expired')),
  /** a model (or one version) that cannot take requests now: loading, unloading, without instances */
  MODEL_UNAVAILABLE: define((what: string, why: string) => new InferError('UNAVAILABLE', `${what} ${why}`)),

  // ---- repository control ----
  CONTROL_NOT_ALLOWED: define(() => new InferError('UNAVAILABLE', 'explicit model load / unload is not allowed if polling is enabled')),
  /** `detail`: why the model's files could not be read or written, when it is more than "not there" */
  LOAD_NOT_FOUND: define((model: string, detail?: string) =>
    new InferError('INTERNAL', `failed to load '${model}', failed to poll from model repository${detail ? `: ${detail}` : ''}`)),
  UNLOAD_NOT_SERVED: define(() => new InferError('INVALID_ARG', 'Model to be unloaded has not been served')),
  REPOSITORY_NAME_UNSUPPORTED: define(() => new InferError('UNSUPPORTED', "'repository_name' specification is not supported")),

  // ---- request bodies ----
  INVALID_JSON: define((detail: string) => new InferError('INVALID_ARG', `failed to parse the request JSON buffer: ${detail}`)),
  BODY_NOT_OBJECT: define((what: string) => new InferError('INVALID_ARG', `${what} request body must be a JSON object`)),
  BAD_FIELD: define((field: string, expected: string) => new InferError('INVALID_ARG', `Unable to parse '${field}': expected ${expected}`)),
  INVALID: define((message: string) => new InferError('INVALID_ARG', message)),

  // ---- bodies over --http-max-input-size: Triton's 400 and words, one per way the bytes came ----
  /**
   * a JSON body (or a binary-extension request, counted whole) of `size` bytes; `flag` false for a limit
   * the flag does not set (the control routes' own), whose refusal must not send the user to the flag
   */
  BODY_TOO_LARGE: define((size: number, limit: number, flag = true) =>
    new InferError('INVALID_ARG', `request JSON size of ${size} bytes exceeds the maximum allowed input size of ${limit} bytes.${flag ? ' Use --http-max-input-size to increase the limit.' : ''}`)),
  /** a raw binary request (Inference-Header-Content-Length: 0): the body is the input */
  RAW_INPUT_TOO_LARGE: define((size: number, limit: number) =>
    new InferError('INVALID_ARG', `Raw input has a byte_size (${size} bytes) that exceeds the maximum allowed value of ${limit} bytes. Use --http-max-input-size to increase the limit.`)),
  /** a gzip/deflate body that inflates past the limit (counted while inflating, so no size) */
  DECOMPRESSED_TOO_LARGE: define((limit: number) =>
    new InferError('INVALID_ARG', `Decompressed data size exceeds the maximum allowed value of ${limit} bytes. Use --http-max-input-size to increase the limit.`)),
  /** Transfer-Encoding: chunked with more non-empty chunks than `max` */
  TOO_MANY_CHUNKS: define((max: number) =>
    new InferError('INVALID_ARG', `Chunked request body exceeds maximum of ${max} non-empty chunks. Send fewer or larger HTTP chunks.`)),

  // ---- transport-level refusals: their own HTTP status (see infer-error.ts) ----
  /** `detail` names the type (fastify's own message does) */
  UNSUPPORTED_MEDIA: define((detail: string) => new InferError('INVALID_ARG', detail, 415)),
  METHOD_NOT_ALLOWED: define(() => new InferError('UNSUPPORTED', 'Method Not Allowed', 405)),
  /** no route: Triton's body is exactly `{"error": "Not Found"}` (the path is not echoed back) */
  ROUTE_NOT_FOUND: define(() => new InferError('NOT_FOUND', 'Not Found')),
  /** a control call without the token (401) or with a wrong one (403); Triton answers a restricted API UNAVAILABLE on gRPC */
  CONTROL_REFUSED: define((message: string, status: 401 | 403) => new InferError('UNAVAILABLE', message, status)),
  /** the client closed its request before the answer: nobody reads it, but logs and counters do */
  CLIENT_CANCELLED: define((message: string) => new InferError('CANCELLED', message, 499)),
};
