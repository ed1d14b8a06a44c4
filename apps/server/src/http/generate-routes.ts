/**
 * The generate extension's routes (generate.ts says what they take and give). Both run the request
 * through streamInference, so a decoupled model streams and any other model answers once; the client
 * closing the connection cancels the request (a decoupled model's sender then stops).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ClientGone } from '../models/cancellable';
import { describeError } from './errors';
import { generateResponse, parseGenerateRequest } from '../kserve/generate';
import type { InferServiceDeps } from '../kserve/infer-service';
import type { ModelSpec } from '../kserve/model-spec';
import { streamInference, type StreamedResponse } from '../kserve/stream-inference';

type Params = { model: string; version?: string };
type Req = FastifyRequest<{ Params: Params }>;

function call(request: Req, signal: ClientGone) {
  return {
    protocol: 'http' as const,
    model: request.params.model,
    version: request.params.version,
    signal,
    decode: (spec: ModelSpec) => parseGenerateRequest(request.body, spec),
  };
}

/** aborts when the client closes its connection before the answer was sent */
function clientGone(reply: FastifyReply): ClientGone {
  const gone = new ClientGone();
  reply.raw.on('close', () => {
    if (!reply.raw.writableFinished) gone.abort();
  });
  return gone;
}

const errorBody = (err: unknown) => {
  const { status, message } = describeError(err);
  return { status, body: JSON.stringify({ error: message }) };
};

export function registerGenerateRoutes(app: FastifyInstance, deps: InferServiceDeps): void {
  const generate = async (request: Req, reply: FastifyReply) => {
    let last: StreamedResponse | undefined;
    let failure: StreamedResponse['error'];
    try {
      await streamInference(deps, call(request, clientGone(reply)), (r) => {
        if (r.error) failure ??= r.error;
        else if (!r.empty) last = r;
      });
    } catch (err) {
      const e = errorBody(err);
      return reply.code(e.status).header('content-type', 'application/json').send(e.body);
    }
    if (failure) return reply.code(failure.httpStatus).header('content-type', 'application/json').send(JSON.stringify({ error: failure.message }));
    if (!last) return reply.code(200).header('content-type', 'application/json').send(JSON.stringify({ model_name: request.params.model, model_version: request.params.version ?? '' }));
    return reply.code(200).header('content-type', 'application/json').send(JSON.stringify(generateResponse(last)));
  };

  const generateStream = async (request: Req, reply: FastifyReply) => {
    let started = false;
    const start = () => {
      if (started) return;
      started = true;
      reply.hijack();
      reply.raw.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' });
    };
    const event = (body: unknown) => {
      start();
      if (!reply.raw.destroyed) reply.raw.write(`data: ${JSON.stringify(body)}\n\n`);
    };
    try {
      await streamInference(deps, call(request, clientGone(reply)), (r) => {
        if (r.error) event({ error: r.error.message });
        else if (!r.empty) event(generateResponse(r));
      });
    } catch (err) {
      if (!started) {
        const e = errorBody(err);
        return reply.code(e.status).header('content-type', 'application/json').send(e.body);
      }
      event({ error: describeError(err).message });
    }
    if (!started) {
      // a final flag with nothing before it: an empty event stream
      start();
    }
    reply.raw.end();
  };

  for (const base of ['/v2/models/:model', '/v2/models/:model/versions/:version']) {
    app.post<{ Params: Params }>(`${base}/generate`, generate);
    app.post<{ Params: Params }>(`${base}/generate_stream`, generateStream);
  }
}
