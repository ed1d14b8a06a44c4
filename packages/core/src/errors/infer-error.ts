/**
 * The one error class: a Triton code and a message. Every protocol derives its answer from the code
 * (HTTP: httpStatusOfCode; gRPC: the server's grpc/status.ts), never from another status.
 *
 * Refusals of the transport itself, which Triton's codes do not describe (a media type the route cannot
 * read, a method the path does not take, a control call without or with the wrong token, a client that
 * went away), still carry the code that fits them for every other protocol, plus the HTTP status HTTP
 * answers them with: `transportStatus`. Only the builders in messages.ts set it,
 * so the list of such statuses is TRANSPORT_STATUSES and nothing else.
 */
import { httpStatusOfCode, type ErrorCode } from './codes';

/** HTTP statuses of transport-level refusals (see above). 499: the client closed its request (nginx's name). */
export const TRANSPORT_STATUSES = [401, 403, 405, 415, 499] as const;
export type TransportStatus = (typeof TRANSPORT_STATUSES)[number];

export class InferError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** set only for transport-level refusals (see the file comment) */
    readonly transportStatus?: TransportStatus,
  ) {
    super(message);
    this.name = 'InferError';
  }

  /** The status an HTTP client gets: the transport's own, else Triton's for the code. */
  get httpStatus(): number {
    return this.transportStatus ?? httpStatusOfCode(this.code);
  }
}

/** The code of anything thrown: an InferError's own; anything else is INTERNAL (a bug or a crash). */
export function codeOf(err: unknown): ErrorCode {
  return err instanceof InferError ? err.code : 'INTERNAL';
}

/** Code and message of anything thrown, as an InferError (the same object when it already is one). */
export function asInferError(err: unknown): InferError {
  if (err instanceof InferError) return err;
  const message = err instanceof Error ? err.message : typeof (err as { message?: unknown })?.message === 'string' ? (err as { message: string }).message : String(err);
  return new InferError('INTERNAL', message);
}
