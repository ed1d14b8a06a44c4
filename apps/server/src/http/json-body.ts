/**
 * JSON bodies for the non-inference routes. Triton accepts an empty body on the repository endpoints
 * (curl -X POST without data), so empty means "no fields"; anything else must parse, or the client gets
 * 400 with the parser's reason (never a 500).
 */
import type { FastifyInstance } from 'fastify';
import { errors } from '@inferscope/core';
import { depthExceeds, MAX_JSON_DEPTH, NESTING_MESSAGE } from './json-guard';

export function installJsonParser(app: FastifyInstance, bodyLimit: number): void {
  const parse = (_req: unknown, body: string | Buffer, done: (err: Error | null, body?: unknown) => void) => {
    const text = body.toString().trim();
    if (text === '') return done(null, undefined);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      return done(errors.INVALID_JSON((err as Error).message), undefined);
    }
    if (depthExceeds(value, MAX_JSON_DEPTH, text.length)) return done(errors.INVALID_JSON(NESTING_MESSAGE), undefined);
    done(null, value);
  };
  // Triton reads these bodies as JSON whatever the Content-Type says (curl -d sends form encoding).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit }, parse);
  app.addContentTypeParser('*', { parseAs: 'string', bodyLimit }, parse);
}

/** The body as an object with only known fields checked by the caller; undefined/empty -> {}. */
export function objectBody(body: unknown, what: string): Record<string, unknown> {
  if (body === undefined || body === null || body === '') return {};
  if (typeof body !== 'object' || Array.isArray(body) || Buffer.isBuffer(body)) throw errors.BODY_NOT_OBJECT(what);
  return body as Record<string, unknown>;
}
