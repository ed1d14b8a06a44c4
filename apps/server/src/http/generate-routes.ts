/**
 * The generate extension's routes (generate.ts says what they take and give). Both run the request
 * through streamInference, so a decoupled model streams and any other model answers once; the client
 * closing the connection cancels the request (a decoupled model's sender then stops).
 *
 * They live in the infer routes' scope (kserve-routes.ts) and are admitted as an infer request is (issue
 * 56): the body limit of --http-max-input-size (which the refusal names), a share of --max-inflight-bytes
 * held until the answer, and the request's memory estimate checked against both that and the memory
 * budget (runInference, through the charge). The body is read as infer's is (http-infer-call.ts: gzip and
 * deflate accepted) and must be UTF-8 JSON.
 *
 * generate_stream writes each response as it comes and tells the model's send window when the socket has
 * taken it (backends/stub/send-window.ts): a client that stops reading slows the model down instead of
 * the server buffering every event.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { describeError } from '../infer/errors';
import { HttpInferCall, type HttpRequest } from './http-infer-call';
import type { Held } from '../infer/inflight-bytes';
import { CHARGED_IN_SCOPE } from './inflight-hooks';
import { generateResponse, parseGenerateRequest } from '../kserve/generate';
import type { InferServiceDeps } from '../infer/run-inference';
import type { ModelSpec } from '../infer/model-spec';
import { parseJsonBody } from '../kserve/parse-request';
import { streamInference, type StreamedResponse } from '../infer/stream-inference';

export interface GenerateScope {
  deps: InferServiceDeps;
  /** takes the request's charge (installInflightBytes) */
  hold: (req: FastifyRequest) => Held;
  bodyLimit: number;
}

const parseGenerate = (body: Buffer, _request: HttpRequest, spec: ModelSpec) => parseGenerateRequest(parseJsonBody(body), spec);

/** Registers the routes in the infer scope, whose body parser hands every body over as a Buffer. */
export function registerGenerateRoutes(scope: FastifyInstance, { deps, hold, bodyLimit }: GenerateScope): void {
  const call = (request: HttpRequest, held: Held) => new HttpInferCall(request, held, bodyLimit, parseGenerate);

  // errors thrown here leave through the scope's error handler, as an infer request's
  const generate = async (request: HttpRequest, reply: FastifyReply) => {
    const held = hold(request);
    let last: StreamedResponse | undefined;
    let failure: StreamedResponse['error'];
    try {
      await streamInference(deps, call(request, held), (r) => {
        r.left(); // only the last response with data is kept
        if (r.error) failure ??= r.error;
        else if (!r.empty) last = r;
      }, true);
    } finally {
      held.release();
    }
    if (failure) return reply.code(failure.httpStatus).header('content-type', 'application/json').send(JSON.stringify({ error: failure.message }));
    if (!last) return reply.code(200).header('content-type', 'application/json').send(JSON.stringify({ model_name: request.params.model, model_version: request.params.version ?? '' }));
    return reply.code(200).header('content-type', 'application/json').send(JSON.stringify(generateResponse(last)));
  };

  const generateStream = async (request: HttpRequest, reply: FastifyReply) => {
    const held = hold(request);
    const sse = new EventStream(reply);
    try {
      await streamInference(deps, call(request, held), (r) => sse.respond(r));
    } catch (err) {
      if (!sse.started) throw err;
      sse.event({ error: describeError(err).message });
    } finally {
      held.release();
    }
    sse.start(); // a final flag with nothing before it: an empty event stream
    reply.raw.end();
  };

  for (const base of ['/v2/models/:model', '/v2/models/:model/versions/:version']) {
    scope.post<{ Params: HttpRequest['params'] }>(`${base}/generate`, { bodyLimit, config: CHARGED_IN_SCOPE }, generate);
    scope.post<{ Params: HttpRequest['params'] }>(`${base}/generate_stream`, { bodyLimit, config: CHARGED_IN_SCOPE }, generateStream);
  }
}

/**
 * One generate_stream answer: the event stream starts at its first event, each response one event. A class,
 * not closures made per request: under tsx each closure bound to a name pays a defineProperty
 * (ARCHITECTURE.md, hot paths).
 */
class EventStream {
  started = false;

  constructor(private readonly reply: FastifyReply) {}

  start(): void {
    if (this.started) return;
    this.started = true;
    this.reply.hijack();
    // no `connection` header of our own: Node keeps the connection as the client asked (a forced
    // keep-alive held a client that sent `connection: close` open for the whole keep-alive timeout)
    this.reply.raw.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  }

  event(body: unknown, left?: () => void): void {
    this.start();
    if (this.reply.raw.destroyed) return left?.();
    // the callback runs once the socket has taken the event (Node holds it while the client reads nothing)
    this.reply.raw.write(`data: ${JSON.stringify(body)}\n\n`, left && (() => left()));
  }

  respond(r: StreamedResponse): void {
    if (r.empty) return r.left();
    if (r.error) return this.event({ error: r.error.message }, r.left);
    let body: unknown;
    try {
      body = generateResponse(r);
    } catch (err) {
      body = { error: describeError(err).message }; // an output JSON cannot carry; the stream goes on
    }
    this.event(body, r.left);
  }
}
