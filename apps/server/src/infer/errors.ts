/**
 * How an inference request's errors are put to the client, whatever the protocol: the shorthand for the
 * most common refusal (input the client got wrong: INVALID_ARG, HTTP 400) and the one way anything thrown
 * becomes a code, an HTTP status and a public message. The vocabulary itself (Triton's codes, InferError,
 * the status of each code) is core's (packages/core/src/errors); HTTP adds fastify's own errors in
 * http/errors.ts.
 */
import { asInferError, errors, InferError, type ErrorCode } from '@inferscope/core';
import { publicMessage } from './redact-paths';

export const invalid = (message: string): InferError => errors.INVALID(message);

/**
 * Anything thrown, as an InferError: ours as they are; JSON that does not parse and any error carrying a
 * 4xx status (a library refusing what the client sent) are the client's; everything else is INTERNAL.
 */
export function asRequestError(err: unknown): InferError {
  if (err instanceof InferError) return err;
  if (err instanceof SyntaxError) return errors.INVALID_JSON(err.message);
  const status = (err as { statusCode?: unknown } | null)?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) return errors.INVALID(String((err as Error).message));
  return asInferError(err);
}

/**
 * Code, HTTP status and public message (no server path, capped: it may quote what the client sent; never
 * a stack) of anything thrown: what every protocol sends.
 */
export function describeError(err: unknown): { code: ErrorCode; status: number; message: string } {
  const e = asRequestError(err);
  return { code: e.code, status: e.httpStatus, message: publicMessage(e.message) };
}
