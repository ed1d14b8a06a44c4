/**
 * How anything a route throws becomes an HTTP answer. The error vocabulary itself (Triton's codes, the
 * InferError class, the messages said in more than one place, the HTTP status of each code) lives in
 * core (packages/core/src/errors); here fastify's own errors are put in its words, once, for HTTP and
 * gRPC alike. The body is always Triton's `{"error": "..."}`.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { asInferError, errors, InferError, type ErrorCode } from '@inferscope/core';
import { capMessage } from './json-guard';

/** Every error body of the non-inference routes leaves here, its message capped (it may quote input). */
export function sendHttpError(reply: FastifyReply, err: InferError): FastifyReply {
  return reply.code(err.httpStatus).header('content-type', 'application/json').send(JSON.stringify({ error: capMessage(err.message) }));
}

/**
 * Anything thrown, as an InferError: ours as they are; fastify's content-parser errors in our words
 * (a body over the limit, a media type no parser takes, JSON that does not parse); any other error
 * fastify raised for the request is the client's (INVALID_ARG) when fastify gave it a 4xx status;
 * everything else is INTERNAL.
 */
export function toInferError(err: unknown, bodyLimit?: number, limitFlag?: string): InferError {
  if (err instanceof InferError) return err;
  const e = err as Partial<FastifyError> | null;
  switch (e?.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return errors.BODY_TOO_LARGE(bodyLimit ?? 0, undefined, limitFlag);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return errors.UNSUPPORTED_MEDIA(String(e.message));
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return errors.INVALID_JSON(String(e.message));
  }
  if (e instanceof SyntaxError) return errors.INVALID_JSON(e.message);
  if (typeof e?.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) return errors.INVALID(String(e.message));
  return asInferError(err);
}

/** Code, HTTP status and capped message (it may quote what the client sent; never a stack) of anything thrown. */
export function describeError(err: unknown, bodyLimit?: number, limitFlag?: string): { code: ErrorCode; status: number; message: string } {
  const e = toInferError(err, bodyLimit, limitFlag);
  return { code: e.code, status: e.httpStatus, message: capMessage(e.message) };
}

/** The KServe v2 / Triton paths this server answers (whatever the method). */
const KSERVE_PATHS = [
  /^\/v2\/?$/,
  /^\/v2\/health\/(live|ready)$/,
  /^\/v2\/models\/[^/]+(\/versions\/[^/]+)?(\/(ready|config|infer|stats))?$/,
  /^\/v2\/models\/stats$/,
  /^\/v2\/repository\/index$/,
  /^\/v2\/repository\/models\/[^/]+\/(load|unload)$/,
];

/** The flag that sets the infer body limit: the remedy a body refused by it names. */
export const INFER_BODY_LIMIT_FLAG = '--http-max-input-size';

/** A route's `config` may name the flag that sets its body limit (a route without one has a fixed limit). */
export interface BodyLimitConfig {
  bodyLimitFlag?: string;
}

export function installErrorHandlers(app: import('fastify').FastifyInstance, bodyLimit: number): void {
  app.setErrorHandler((err, request: FastifyRequest, reply) => {
    // the route's own limit, and the flag that sets it if one does: never a flag that does not govern it
    const route = request.routeOptions;
    const e = toInferError(err, route?.bodyLimit ?? bodyLimit, (route?.config as BodyLimitConfig | undefined)?.bodyLimitFlag);
    if (e.httpStatus >= 500) request.log.error({ err }, 'request failed');
    void sendHttpError(reply, e);
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0];
    // A KServe path asked with the wrong method: Triton answers 405, not 404.
    if (KSERVE_PATHS.some((re) => re.test(path))) return void sendHttpError(reply, errors.METHOD_NOT_ALLOWED());
    void sendHttpError(reply, errors.ROUTE_NOT_FOUND(request.method, path.slice(0, 200)));
  });
}
