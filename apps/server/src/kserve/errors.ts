/**
 * Errors of the KServe front end. Every refusal carries the HTTP status Triton uses for it, and the
 * route's error handler turns it into Triton's body `{"error": "..."}`.
 */
import { SchedulerError } from '@inferscope/core';

export class KServeError extends Error {
  constructor(
    /** 400 malformed/invalid, 404 unknown version, 413 body too large, 503 not ready / overloaded */
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'KServeError';
  }
}

export const invalid = (message: string): KServeError => new KServeError(400, message);

/** Status and message for anything an infer or stats handler can throw. Never leaks a stack trace. */
export function describeError(err: unknown): { status: number; message: string } {
  if (err instanceof KServeError) return { status: err.status, message: err.message };
  if (err instanceof SchedulerError) return { status: err.httpStatus, message: err.message };
  const e = err as { statusCode?: unknown; message?: unknown; code?: unknown } | null;
  if (e && typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 600) {
    return { status: e.statusCode, message: String(e.message ?? 'request failed') };
  }
  return { status: 500, message: e && typeof e.message === 'string' ? e.message : String(err) };
}
