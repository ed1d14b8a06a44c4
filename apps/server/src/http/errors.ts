/**
 * The server's error registry: every error the HTTP layer itself raises has a code, a status and a
 * message builder here (the idea of fastify's lib/errors.js), so wording and status live in one place and
 * tests can refer to codes. The body is always Triton's `{"error": "..."}`.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { capMessage } from './json-guard';

export class HttpError extends Error {
  constructor(
    readonly code: string,
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

function define<A extends unknown[]>(code: string, statusCode: number, message: (...args: A) => string) {
  const make = (...args: A): HttpError => new HttpError(code, statusCode, message(...args));
  return Object.assign(make, { code, statusCode });
}

export const errors = {
  INVALID_JSON: define('INFERSCOPE_INVALID_JSON', 400, (detail: string) => `failed to parse the request JSON buffer: ${detail}`),
  BODY_NOT_OBJECT: define('INFERSCOPE_BODY_NOT_OBJECT', 400, (what: string) => `${what} request body must be a JSON object`),
  BAD_FIELD: define('INFERSCOPE_BAD_FIELD', 400, (field: string, expected: string) => `Unable to parse '${field}': expected ${expected}`),
  BODY_TOO_LARGE: define('INFERSCOPE_BODY_TOO_LARGE', 413, (limit: number) => `request body exceeds the maximum size of ${limit} bytes`),
  UNSUPPORTED_MEDIA: define('INFERSCOPE_UNSUPPORTED_MEDIA', 415, (type: string) => `unsupported content type '${type}'`),
  INVALID_MODEL_NAME: define('INFERSCOPE_INVALID_MODEL_NAME', 400, (why: string) => why),
  INVALID_VERSION: define('INFERSCOPE_INVALID_VERSION', 400, (why: string) => why),
  MODEL_NOT_READY: define('INFERSCOPE_MODEL_NOT_READY', 400, () => 'Model version not ready'),
  NOT_FOUND: define('INFERSCOPE_NOT_FOUND', 404, (method: string, url: string) => `Not Found: ${method} ${url}`),
  METHOD_NOT_ALLOWED: define('INFERSCOPE_METHOD_NOT_ALLOWED', 405, () => 'Method Not Allowed'),
  SHUTTING_DOWN: define('INFERSCOPE_SHUTTING_DOWN', 503, () => 'Server is shutting down'),
};

/** Every error body of the non-inference routes leaves here, its message capped (it may quote input). */
export function sendError(reply: FastifyReply, status: number, message: string): FastifyReply {
  return reply.code(status).header('content-type', 'application/json').send(JSON.stringify({ error: capMessage(message) }));
}

/** Status and message for anything a route throws: our errors, ManagerError, fastify's own errors. */
export function statusOf(err: unknown, bodyLimit: number): { status: number; message: string } {
  if (err instanceof HttpError) return { status: err.statusCode, message: err.message };
  const e = err as Partial<FastifyError> & { httpStatus?: number };
  if (typeof e?.httpStatus === 'number') return { status: e.httpStatus, message: String(e.message) };
  switch (e?.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { status: 413, message: errors.BODY_TOO_LARGE(bodyLimit).message };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { status: 415, message: String(e.message) };
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return { status: 400, message: errors.INVALID_JSON(String(e.message)).message };
  }
  if (e instanceof SyntaxError) return { status: 400, message: errors.INVALID_JSON(e.message).message };
  const status = typeof e?.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 600 ? e.statusCode : 500;
  return { status, message: typeof e?.message === 'string' ? e.message : String(err) };
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

export function installErrorHandlers(app: import('fastify').FastifyInstance, bodyLimit: number): void {
  app.setErrorHandler((err, request: FastifyRequest, reply) => {
    const { status, message } = statusOf(err, bodyLimit);
    if (status >= 500) request.log.error({ err }, 'request failed');
    void sendError(reply, status, message);
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0];
    // A KServe path asked with the wrong method: Triton answers 405, not 404.
    if (KSERVE_PATHS.some((re) => re.test(path))) return void sendError(reply, 405, errors.METHOD_NOT_ALLOWED().message);
    void sendError(reply, 404, errors.NOT_FOUND(request.method, path.slice(0, 200)).message);
  });
}
