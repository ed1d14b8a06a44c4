/**
 * One HTTP request as runInference sees it, for every route of the infer scope (infer, generate,
 * generate_stream): the body as the scope buffered it, decompressed when it came gzip or deflate (Triton
 * accepts both), charged to the request's share of --max-inflight-bytes as it grows, then parsed by the
 * route's own parser. A class with a `decode` method rather than an object literal with an arrow: the
 * sources run through tsx, whose esbuild `keepNames` wraps every named closure in a defineProperty call
 * when it is created (~0.6 µs each, measured with perf on this path).
 */
import { promisify } from 'node:util';
import { gunzip, inflate, type ZlibOptions } from 'node:zlib';
import type { FastifyRequest } from 'fastify';
import { errors, InferError } from '@inferscope/core';
import { overLimitMessage, type Held } from '../infer/inflight-bytes';
import { costFactor } from './inflight-hooks';
import type { InferCall } from '../infer/run-inference';
import type { ModelSpec } from '../infer/model-spec';
import type { ParsedRequest } from '../infer/parsed-request';
import type { CancelSignal } from '../infer/cancellable';

// zlib's callback forms run on libuv's thread pool: a 64 MiB body is decompressed off the event loop
// that runs the scheduler, in chunks, with the same maxOutputLength limit as the sync forms.
const gunzipAsync = promisify<Buffer, ZlibOptions, Buffer>(gunzip);
const inflateAsync = promisify<Buffer, ZlibOptions, Buffer>(inflate);

type Params = { model: string; version?: string };
export type HttpRequest = FastifyRequest<{ Params: Params }>;
/** A route's parser: the (decompressed) body into the request's parsed form. */
export type BodyParser = (body: Buffer, request: HttpRequest, spec: ModelSpec) => ParsedRequest;

const EMPTY = Buffer.alloc(0);

export class HttpInferCall implements InferCall {
  readonly protocol = 'http' as const;
  readonly model: string;
  readonly version: string | undefined;
  readonly signal: CancelSignal;

  constructor(
    private readonly request: HttpRequest,
    readonly charge: Held,
    private readonly bodyLimit: number,
    private readonly parse: BodyParser,
  ) {
    this.model = request.params.model;
    this.version = request.params.version;
    this.signal = charge.gone;
  }

  decode(spec: ModelSpec): ParsedRequest | Promise<ParsedRequest> {
    const { request } = this;
    const raw = Buffer.isBuffer(request.body) ? request.body : EMPTY;
    const encoding = request.headers['content-encoding'];
    // An uncompressed body (nearly every request) is decoded synchronously: no promise, no extra turn.
    if (encoding === undefined) return this.parse(raw, request, spec);
    return decompress(raw, encoding, this.bodyLimit).then((body) => {
      // what the body became is charged like a body of that size (a small compressed body can inflate to
      // the body limit): refused as over the limit when it does not fit beside the others in flight
      const grown = (body.byteLength - raw.byteLength) * costFactor(request);
      if (grown > 0 && !this.charge.grow(grown)) throw new InferError('UNAVAILABLE', overLimitMessage(this.charge.limit));
      return this.parse(body, request, spec);
    });
  }
}

export class UnsupportedEncoding extends InferError {
  constructor() {
    super('UNSUPPORTED', 'Unsupported compression type');
  }
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
      ? errors.DECOMPRESSED_TOO_LARGE(limit)
      : errors.INVALID(`unable to decompress the ${enc} request body: ${(err as Error).message}`);
  }
}
