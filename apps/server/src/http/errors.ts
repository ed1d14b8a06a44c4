/**
 * How anything a route throws becomes an HTTP answer. The error vocabulary itself (Triton's codes, the
 * InferError class, the messages said in more than one place, the HTTP status of each code) lives in
 * core (packages/core/src/errors); here fastify's own errors are put in its words, once, for HTTP and
 * gRPC alike. The body is always Triton's `{"error": "..."}`.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { errors, type InferError } from '@inferscope/core';
import { publicMessage } from '../infer/redact-paths';
import { asRequestError } from '../infer/errors';

/** Every error body of the non-inference routes leaves here, its message public (no server path, capped). */
export function sendHttpError(reply: FastifyReply, err: InferError): FastifyReply {
  return reply.code(err.httpStatus).header('content-type', 'application/json').send(JSON.stringify({ error: publicMessage(err.message) }));
}

/**
 * Anything a route throws, as an InferError: fastify's content-parser errors in our words (a media type no
 * parser takes, an empty or unparsable JSON body), then as every protocol puts errors (infer/errors.ts).
 */
export function toInferError(err: unknown): InferError {
  const e = err as Partial<FastifyError> | null;
  switch (e?.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return errors.UNSUPPORTED_MEDIA(String(e.message));
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return errors.INVALID_JSON(String(e.message));
  }
  return asRequestError(err);
}

/** The KServe v2 / Triton paths this server answers (whatever the method); a version is digits, as in Triton. */
const KSERVE_PATHS = [
  /^\/v2\/?$/,
  /^\/v2\/health\/(live|ready)$/,
  /^\/v2\/models\/[^/]+(\/versions\/\d+)?(\/(ready|config|infer|stats))?$/,
  /^\/v2\/models\/stats$/,
  /^\/v2\/repository\/index$/,
  /^\/v2\/repository\/models\/[^/]+\/(load|unload)$/,
];

/** A route's `:version` segment, as Triton's model route takes it: digits only. */
const VERSION_SEGMENT = '/versions/:version';
const DIGITS_VERSION_SEGMENT = '/versions/:version(^\\d+$)';

export function installErrorHandlers(app: import('fastify').FastifyInstance): void {
  // Every route registered after this one with a version in its path matches digits only: anything else
  // is no route at all (404 "Not Found"), as in Triton, not a version lookup that fails with 400.
  app.addHook('onRoute', (route) => {
    if (!route.url.includes(VERSION_SEGMENT)) return;
    route.url = route.url.replace(VERSION_SEGMENT, DIGITS_VERSION_SEGMENT);
    route.path = route.url;
  });
  app.setErrorHandler((err, request: FastifyRequest, reply) => {
    const e = toInferError(err);
    if (e.httpStatus >= 500) request.log.error({ err }, 'request failed');
    void sendHttpError(reply, e);
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0];
    // A KServe path asked with the wrong method: Triton answers 405, not 404.
    if (KSERVE_PATHS.some((re) => re.test(path))) return void sendHttpError(reply, errors.METHOD_NOT_ALLOWED());
    void sendHttpError(reply, errors.ROUTE_NOT_FOUND());
  });
}
