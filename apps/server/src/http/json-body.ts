/**
 * JSON bodies for the non-inference routes. Triton accepts an empty body on the repository endpoints
 * (curl -X POST without data), so empty means "no fields"; anything else must parse, or the client gets
 * 400 with the parser's reason (never a 500).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { errors } from '@inferscope/core';
import { depthExceeds, MAX_JSON_DEPTH, NESTING_MESSAGE } from '@inferscope/core/util';
import { readBody, type BodyLimits } from './body-reader';

export interface JsonParserOptions extends BodyLimits {
  /**
   * Refuse documents nested deeper than MAX_JSON_DEPTH (default). Only a scope whose routes read a few
   * top-level fields by type, never walking a value, turns it off: Triton parses such bodies whole and
   * answers about the field (the repository index's 'ready').
   */
  depthLimit?: boolean;
}

export function installJsonParser(app: FastifyInstance, options: JsonParserOptions): void {
  const parse = (req: FastifyRequest, payload: Parameters<typeof readBody>[1], done: (err: Error | null, body?: unknown) => void) =>
    readBody(req, payload, options, (err, raw) => {
      if (err) return done(err);
      const text = raw!.toString().trim();
      if (text === '') return done(null, undefined);
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (e) {
        return done(errors.INVALID_JSON((e as Error).message));
      }
      if (options.depthLimit !== false && depthExceeds(value, MAX_JSON_DEPTH, text.length)) return done(errors.INVALID_JSON(NESTING_MESSAGE));
      done(null, value);
    });
  // Triton reads these bodies as JSON whatever the Content-Type says (curl -d sends form encoding).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', parse);
  app.addContentTypeParser('*', parse);
}

/** The body as an object with only known fields checked by the caller; undefined/empty -> {}. */
export function objectBody(body: unknown, what: string): Record<string, unknown> {
  if (body === undefined || body === null || body === '') return {};
  if (typeof body !== 'object' || Array.isArray(body) || Buffer.isBuffer(body)) throw errors.BODY_NOT_OBJECT(what);
  return body as Record<string, unknown>;
}
