/**
 * Errors of the KServe front end. Every refusal carries the HTTP status Triton uses for it, and the
 * route's error handler turns it into Triton's body `{"error": "..."}`.
 */
import { SchedulerError } from '@inferscope/core';
import { capMessage } from '../http/json-guard';

export class KServeError extends Error {
  constructor(
    /** 400 malformed/invalid, 404 unknown version, 413 body too large, 503 not ready / overloaded */
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'KServeError';
  }

  /** the field the app-wide error handler reads (as on ManagerError) */
  get httpStatus(): number {
    return this.status;
  }
}

export const invalid = (message: string): KServeError => new KServeError(400, message);

/**
 * Status and message for anything an infer or stats handler can throw. Never leaks a stack trace; the
 * message is capped (it may quote what the client sent).
 */
export function describeError(err: unknown): { status: number; message: string } {
  const d = describeUncapped(err);
  return { status: d.status, message: capMessage(d.message) };
}

function describeUncapped(err: unknown): { status: number; message: string } {
  if (err instanceof KServeError) return { status: err.status, message: err.message };
  if (err instanceof SchedulerError) return { status: err.httpStatus, message: err.message };
  // ManagerError (httpStatus) and Fastify's own errors (statusCode) carry their status too.
  const e = err as { statusCode?: unknown; httpStatus?: unknown; message?: unknown } | null;
  const status = e ? (typeof e.httpStatus === 'number' ? e.httpStatus : e.statusCode) : undefined;
  if (typeof status === 'number' && status >= 400 && status < 600) {
    return { status, message: String(e?.message ?? 'request failed') };
  }
  return { status: 500, message: e && typeof e.message === 'string' ? e.message : String(err) };
}
