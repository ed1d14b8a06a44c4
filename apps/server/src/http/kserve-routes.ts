/**
 * `POST /v2/models/{m}[/versions/{v}]/infer` (and the generate extension's routes, generate-routes.ts, in
 * the same scope so they are admitted alike). The routes live in their own encapsulated Fastify scope
 * so that their body handling does not leak into the rest of the app: every content type is buffered
 * raw (JSON and the binary extension share one decoder), with its own body limit, and errors leave as
 * Triton's `{"error": "..."}` with Triton's status code.
 */
import { promisify } from 'node:util';
import { deflate, gzip, type ZlibOptions } from 'node:zlib';

// zlib's callback forms run on libuv's thread pool: a large answer is compressed off the event loop
// that runs the scheduler (decompression: http-infer-call.ts).
const gzipAsync = promisify<Buffer | string, ZlibOptions, Buffer>(gzip);
const deflateAsync = promisify<Buffer | string, ZlibOptions, Buffer>(deflate);
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { EventBus } from '@inferscope/core';
import { describeError } from '../infer/errors';
import { readBody } from './body-reader';
import { registerGenerateRoutes } from './generate-routes';
import { HttpInferCall, UnsupportedEncoding } from './http-infer-call';
import { parseHeaderLength, parseInferRequest } from '../kserve/parse-request';
import type { InferModelSource } from '../infer/resolve-model';
import { encodeInferResponse } from '../kserve/encode-response';
import { runInference, type InferOutcome, type InferServiceDeps, type SharedMemoryAccess } from '../infer/run-inference';
import { InflightBytes, defaultInflightLimit, type Held } from '../infer/inflight-bytes';
import { CHARGED_IN_SCOPE, installInflightBytes } from './inflight-hooks';

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
  /** bytes of requests in flight at once (infer/inflight-bytes.ts); default min(1 GiB, memory / 4) */
  inflight?: InflightBytes;
}

export const DEFAULT_INFER_BODY_LIMIT = 64 * 1024 * 1024;

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
    runInference(deps, new HttpInferCall(request, held, bodyLimit, parseBody));

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
    const limits = { limit: bodyLimit, inputSizeLimit: bodyLimit };
    scope.addContentTypeParser('*', (req, payload, done) => readBody(req, payload, limits, done));
    scope.setErrorHandler((err, request, reply) => {
      const { status, message } = describeError(err);
      if (err instanceof UnsupportedEncoding) void reply.header('accept-encoding', 'gzip, deflate');
      if (status >= 500 && status !== 501) request.log.error({ err }, 'inference failed');
      void reply.code(status).header('content-type', 'application/json').send(JSON.stringify({ error: message }));
    });
    scope.post<{ Params: Params }>('/v2/models/:model/infer', { bodyLimit, config: CHARGED_IN_SCOPE }, handler);
    scope.post<{ Params: Params }>('/v2/models/:model/versions/:version/infer', { bodyLimit, config: CHARGED_IN_SCOPE }, handler);
    // the generate extension is admitted as infer is: this body limit, this charge, this memory estimate
    registerGenerateRoutes(scope, { deps, hold, bodyLimit });
  });
}

/** An infer body: JSON, or the binary tensor extension's JSON header and tensors. */
function parseBody(body: Buffer, request: FastifyRequest<{ Params: Params }>) {
  return parseInferRequest(body, parseHeaderLength(request.headers['inference-header-content-length'], body.byteLength), request.params.model);
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
