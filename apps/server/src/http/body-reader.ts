/**
 * Reads a request body with Triton's two bounds, for every route that takes one (the infer scope's raw
 * bytes and the JSON parser of the other routes share it):
 *
 * - size. A body over the route's limit (--http-max-input-size) is answered 400 with Triton's words
 *   (core errors: BODY_TOO_LARGE, or RAW_INPUT_TOO_LARGE for `Inference-Header-Content-Length: 0`),
 *   which quote the body's real size. A chunked body tells its size only at its end, so the rest of it
 *   is read and counted, never kept (memory stays at the limit), and the answer leaves after the last
 *   byte: fastify closes the connection after a parser error, and a client still uploading would get a
 *   reset instead of the answer. A declared Content-Length is refused at once (installDeclaredLimit).
 * - pieces of a chunked body. Each piece is a Buffer kept until the body is complete; 1-byte chunks made a
 *   64 MiB body millions of objects. Past MAX_CHUNKS, Triton's chunk message, and reading stops (fastify
 *   closes the connection after a parser error). Node does not expose chunk boundaries, so what is counted
 *   is the non-empty pieces the parser hands over: one per chunk, more when a chunk spans network reads
 *   (README: deliberate differences).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { errors, type InferError } from '@inferscope/core';
import { sendHttpError } from './errors';

/** Triton's kMaxChunkedChunks. */
export const MAX_CHUNKS = 65536;

export interface BodyLimits {
  /** the route's limit: `request.routeOptions.bodyLimit` is used when set, this otherwise */
  limit: number;
  /** the --http-max-input-size value: only a limit equal to it names the flag in the refusal */
  inputSizeLimit: number;
}

type Done = (err: Error | null, body?: Buffer) => void;
type Payload = NodeJS.ReadableStream & { resume(): unknown; removeListener(e: string, f: (...a: never[]) => void): unknown };

/** The refusal of a body of `size` bytes over `limit`, in the words of the request's kind. */
function tooLarge(req: FastifyRequest, size: number, limit: number, flag: boolean): InferError {
  const header = req.headers['inference-header-content-length'];
  if (typeof header === 'string' && header.trim() === '0') return errors.RAW_INPUT_TOO_LARGE(size, limit);
  return errors.BODY_TOO_LARGE(size, limit, flag);
}

/**
 * A body whose Content-Length is already over the route's limit is answered before a byte of it is read,
 * without `connection: close`: Node reads the rest and discards it, so a client still uploading gets the
 * answer (a closed socket would reset it) and keeps its connection. One hook on the app serves every route.
 */
export function installDeclaredLimit(app: FastifyInstance, limits: BodyLimits): void {
  const floor = Math.min(limits.limit, limits.inputSizeLimit);
  app.addHook('onRequest', (req, reply, done) => {
    const declared = Number(req.headers['content-length']);
    if (!(declared > floor)) return done(); // nearly every request: no route limit to look up
    const limit = routeLimit(req, limits);
    if (!(declared > limit)) return done();
    void sendHttpError(reply, tooLarge(req, declared, limit, limit === limits.inputSizeLimit));
  });
}

/**
 * The route's own limit (a route's `bodyLimit`, else the app's). Looked up only for a body past the smaller
 * of the two limits: fastify builds a fresh routeOptions object at each read.
 */
function routeLimit(req: FastifyRequest, limits: BodyLimits): number {
  return req.routeOptions?.bodyLimit ?? limits.limit;
}

/** A fastify content-type parser body (no `parseAs`): reads `payload` and calls `done` once. */
export function readBody(req: FastifyRequest, payload: Payload, limits: BodyLimits, done: Done): void {
  new BodyRead(req, payload, limits, done);
}

/**
 * One body being read. A class, not closures made per request: under tsx each closure bound to a name
 * pays a defineProperty (ARCHITECTURE.md, hot paths); the two listeners are plain arrows kept as fields.
 */
class BodyRead {
  private readonly floor: number;
  private readonly declared: number;
  private readonly chunked: boolean;
  private readonly parts: Buffer[] = [];
  private received = 0;
  private pieces = 0;
  /** the route's, looked up once the body (declared or received) passes the floor */
  private limit: number | undefined;
  private over: boolean;
  private readonly onData: (chunk: Buffer | string) => void;
  private readonly onEnd: (err?: Error) => void;

  constructor(
    private readonly req: FastifyRequest,
    private readonly payload: Payload,
    private readonly limits: BodyLimits,
    private readonly done: Done,
  ) {
    this.floor = Math.min(limits.limit, limits.inputSizeLimit);
    this.declared = Number(req.headers['content-length']);
    this.chunked = /chunked/i.test(String(req.headers['transfer-encoding'] ?? ''));
    this.over = this.past(this.declared); // (installDeclaredLimit answers these first where it is installed)
    this.onData = (chunk) => this.data(chunk);
    this.onEnd = (err) => this.end(err);
    payload.on('data', this.onData);
    payload.on('end', this.onEnd);
    payload.on('error', this.onEnd);
    payload.resume();
  }

  private past(bytes: number): boolean {
    if (!(bytes > this.floor)) return false;
    this.limit ??= routeLimit(this.req, this.limits);
    return bytes > this.limit;
  }

  private stop(): void {
    this.payload.removeListener('data', this.onData);
    this.payload.removeListener('end', this.onEnd);
    this.payload.removeListener('error', this.onEnd);
  }

  private data(chunk: Buffer | string): void {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    this.received += bytes.byteLength;
    if (this.chunked && bytes.byteLength > 0 && ++this.pieces > MAX_CHUNKS) {
      this.stop();
      this.parts.length = 0;
      this.done(errors.TOO_MANY_CHUNKS(MAX_CHUNKS));
      return;
    }
    if (this.over) return;
    if (this.past(this.received)) {
      this.over = true;
      this.parts.length = 0;
      return;
    }
    this.parts.push(bytes);
  }

  private end(err?: Error): void {
    this.stop();
    if (err) {
      // a broken stream (bad chunk framing, aborted upload) is the client's: 400
      const e = err as Error & { statusCode?: number };
      if (!(typeof e.statusCode === 'number' && e.statusCode >= 400)) e.statusCode = 400;
      this.done(e);
      return;
    }
    if (this.over) return this.done(tooLarge(this.req, this.received, this.limit!, this.limit === this.limits.inputSizeLimit));
    if (!Number.isNaN(this.declared) && this.received !== this.declared) return this.done(errors.INVALID('Request body size did not match Content-Length'));
    // always a copy: the parts may be views of the socket's read buffer
    this.done(null, Buffer.concat(this.parts, this.received));
  }
}
