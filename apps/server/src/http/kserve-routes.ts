/**
 * `POST /v2/models/{m}[/versions/{v}]/infer`. The routes live in their own encapsulated Fastify scope
 * so that their body handling does not leak into the rest of the app: every content type is buffered
 * raw (JSON and the binary extension share one decoder), with its own body limit, and errors leave as
 * Triton's `{"error": "..."}` with Triton's status code.
 */
import { promisify } from 'node:util';
import { deflate, gunzip, gzip, inflate, type ZlibOptions } from 'node:zlib';

// zlib's callback forms run on libuv's thread pool: a 64 MiB body is (de)compressed off the event loop
// that runs the scheduler, in chunks, with the same maxOutputLength limit as the sync forms.
const gunzipAsync = promisify<Buffer, ZlibOptions, Buffer>(gunzip);
const inflateAsync = promisify<Buffer, ZlibOptions, Buffer>(inflate);
const gzipAsync = promisify<Buffer | string, ZlibOptions, Buffer>(gzip);
const deflateAsync = promisify<Buffer | string, ZlibOptions, Buffer>(deflate);
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { EventBus } from '@inferscope/core';
import { errors, InferError } from '@inferscope/core';
import { describeError } from './errors';
import { parseHeaderLength, parseInferRequest, type ParsedRequest } from '../kserve/parse-request';
import type { InferModelSource } from '../kserve/resolve-model';
import { encodeInferResponse } from '../kserve/encode-response';
import { runInference, type InferCall, type InferOutcome, type InferServiceDeps, type SharedMemoryAccess } from '../kserve/infer-service';
import { CHARGED_IN_SCOPE, InflightBytes, costFactor, defaultInflightLimit, installInflightBytes, overLimitMessage, type Held } from './inflight-bytes';
import type { CancelSignal } from '../models/cancellable';

export interface InferRoutesOptions {
  /** largest accepted request body in bytes (Triton's --http-max-input-size); default 64 MiB */
  bodyLimit?: number;
  /**
   * When given, a request refused by the codec (malformed, wrong inputs/shape/datatype) for a known model
   * is published as `request.rejected` with reason 'invalid', so statistics, metrics (failure reason
   * OTHER) and the dashboard see it like any other refusal. `now` is the schedulers' clock in µs.
   */
  events?: { bus: EventBus; now: () => number };
  /** system shared-memory regions for inputs and outputs named by region (Triton's extension) */
  shm?: SharedMemoryAccess;
  /** the memory budget: requests estimated past what it leaves free are refused (memory/request-cost.ts) */
  memory?: InferServiceDeps['memory'];
  /**
   * Responses smaller than this are never compressed, even when the client accepts gzip/deflate: fetch()
   * always asks, and squeezing a 200-byte answer only costs CPU. Default 32 KiB.
   */
  compressMinBytes?: number;
  /** bytes of requests in flight at once (http/inflight-bytes.ts); default min(1 GiB, memory / 4) */
  inflight?: InflightBytes;
}

export const DEFAULT_INFER_BODY_LIMIT = 64 * 1024 * 1024;
const EMPTY = Buffer.alloc(0);

type Params = { model: string; version?: string };

export function registerInferRoutes(
  app: FastifyInstance,
  manager: InferModelSource,
  options: InferRoutesOptions = {},
): void {
  const bodyLimit = options.bodyLimit ?? DEFAULT_INFER_BODY_LIMIT;
  const compressMinBytes = options.compressMinBytes ?? 32 * 1024;
  const deps = { manager, events: options.events, shm: options.shm, memory: options.memory };
  const inflight = options.inflight ?? new InflightBytes(defaultInflightLimit());
  let hold: (req: FastifyRequest) => Held;

  const handler = async (request: FastifyRequest<{ Params: Params }>, reply: FastifyReply) => {
    // The request's bytes stay charged until the scheduler has answered it, also if the client left; a
    // client that closes its connection before the answer cancels its request if it is still queued.
    const held = hold(request);
    let outcome: InferOutcome;
    try {
      outcome = await infer(request, held);
    } finally {
      held.release();
    }
    return answer(request, reply, outcome);
  };

  const infer = (request: FastifyRequest<{ Params: Params }>, held: Held): Promise<InferOutcome> =>
    runInference(deps, new HttpInferCall(request, held.gone, held, bodyLimit));

  // Not async: an uncompressed answer (nearly all) is sent without one more promise and microtask.
  const answer = (request: FastifyRequest, reply: FastifyReply, outcome: InferOutcome): FastifyReply | Promise<FastifyReply> => {
    // When the client has gone but its request ran (it was already in a batch), the answer below goes to a
    // closed connection and is dropped.
    const { served, request: decoded, outputs, shmWritten } = outcome;
    const encoded = encodeInferResponse(served.name, served.version, decoded, outputs, shmWritten);
    reply.header('content-type', encoded.contentType);
    if (encoded.headerLength !== undefined) {
      // Counts bytes of the uncompressed body, also when the response is compressed (as Triton).
      reply.header('inference-header-content-length', String(encoded.headerLength));
    }
    const size = typeof encoded.body === 'string' ? Buffer.byteLength(encoded.body) : encoded.body.byteLength;
    const encoding = size < compressMinBytes ? 'identity' : responseEncoding(request.headers['accept-encoding']);
    if (encoding === 'identity') return reply.send(encoded.body);
    reply.header('content-encoding', encoding);
    return (encoding === 'gzip' ? gzipAsync : deflateAsync)(encoded.body, { level: 1 }).then((zipped) => reply.send(zipped));
  };

  void app.register(async (scope) => {
    hold = installInflightBytes(scope, inflight, bodyLimit);
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit }, (_req, body, done) => done(null, body));
    scope.setErrorHandler((err, request, reply) => {
      // a body over the limit: Triton answers 400 with the --http-max-input-size hint; we keep HTTP's 413
      // (the body is refused before it is read) and give the same hint
      const { status, message } = describeError(err, bodyLimit);
      if (err instanceof UnsupportedEncoding) void reply.header('accept-encoding', 'gzip, deflate');
      if (status >= 500 && status !== 501) request.log.error({ err }, 'inference failed');
      void reply.code(status).header('content-type', 'application/json').send(JSON.stringify({ error: message }));
    });
    scope.post<{ Params: Params }>('/v2/models/:model/infer', { bodyLimit, config: CHARGED_IN_SCOPE }, handler);
    scope.post<{ Params: Params }>('/v2/models/:model/versions/:version/infer', { bodyLimit, config: CHARGED_IN_SCOPE }, handler);
  });
}

/**
 * One HTTP request as runInference sees it. A class with a `decode` method rather than an object literal
 * with an arrow: the sources run through tsx, whose esbuild `keepNames` wraps every named closure in a
 * defineProperty call when it is created (~0.6 µs each, measured with perf on this path).
 */
class HttpInferCall implements InferCall {
  readonly protocol = 'http' as const;
  readonly model: string;
  readonly version: string | undefined;

  constructor(
    private readonly request: FastifyRequest<{ Params: Params }>,
    readonly signal: CancelSignal,
    readonly charge: Held,
    private readonly bodyLimit: number,
  ) {
    this.model = request.params.model;
    this.version = request.params.version;
  }

  decode(): ParsedRequest | Promise<ParsedRequest> {
    const { request, model } = this;
    const raw = Buffer.isBuffer(request.body) ? request.body : EMPTY;
    const encoding = request.headers['content-encoding'];
    const headerLength = request.headers['inference-header-content-length'];
    // An uncompressed body (nearly every request) is decoded synchronously: no promise, no extra turn.
    if (encoding === undefined) return parseBody(raw, headerLength, model);
    return decompress(raw, encoding, this.bodyLimit).then((body) => {
      // what the body became is charged like a body of that size (a small compressed body can inflate to
      // the body limit): refused as over the limit when it does not fit beside the others in flight
      const grown = (body.byteLength - raw.byteLength) * costFactor(request);
      if (grown > 0 && !this.charge.grow(grown)) throw new InferError('UNAVAILABLE', overLimitMessage(this.charge.limit));
      return parseBody(body, headerLength, model);
    });
  }
}

class UnsupportedEncoding extends InferError {
  constructor() {
    super('UNSUPPORTED', 'Unsupported compression type');
  }
}

function parseBody(body: Buffer, headerLengthHeader: string | string[] | undefined, model: string) {
  return parseInferRequest(body, parseHeaderLength(headerLengthHeader, body.byteLength), model);
}

/**
 * Triton accepts gzip and deflate request bodies; Inference-Header-Content-Length then counts bytes of
 * the decompressed body. Decompression is capped at the body limit so a small bomb cannot blow up memory.
 */
async function decompress(body: Buffer, encoding: string | string[] | undefined, limit: number): Promise<Buffer> {
  const enc = (Array.isArray(encoding) ? encoding[0] : encoding)?.trim().toLowerCase();
  if (!enc || enc === 'identity' || body.byteLength === 0) return body;
  // Triton: UNSUPPORTED (501) "Unsupported compression type", and the reply names what it accepts.
  if (enc !== 'gzip' && enc !== 'deflate') throw new UnsupportedEncoding();
  try {
    return await (enc === 'gzip' ? gunzipAsync : inflateAsync)(body, { maxOutputLength: limit });
  } catch (err) {
    const tooBig = (err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE';
    throw tooBig
      ? errors.BODY_TOO_LARGE(limit, 'decompressed request body')
      : errors.INVALID(`unable to decompress the ${enc} request body: ${(err as Error).message}`);
  }
}

/** Triton's choice among identity, gzip and deflate: the acceptable one with the highest q wins. */
export function responseEncoding(header: string | string[] | undefined): 'identity' | 'gzip' | 'deflate' {
  if (!header) return 'identity';
  let best: 'identity' | 'gzip' | 'deflate' = 'identity';
  let bestQ = 0;
  for (const part of (Array.isArray(header) ? header.join(',') : header).split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    if ((name === 'gzip' || name === 'deflate' || name === 'identity') && Number.isFinite(q) && q > bestQ) {
      best = name;
      bestQ = q;
    }
  }
  return best;
}
