/**
 * --max-inflight-bytes on HTTP (infer/inflight-bytes.ts says why and how much): Fastify hooks that charge
 * each request from its headers before its body is read, refuse it with 503 past the total, and release
 * the charge when the answer has gone or the client went away.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ClientGone } from '../infer/cancellable';
import { BINARY_COST_FACTOR, Charge, JSON_COST_FACTOR, overLimitMessage, type Held, type InflightBytes } from '../infer/inflight-bytes';

/**
 * The 503 past the limit. No `connection: close`: closing a socket whose request body is still arriving
 * makes the kernel reset it (unread data), and a client still uploading may then see EPIPE/ECONNRESET
 * instead of this 503 (measured: 40 of 40 clients uploading 4 MiB got EPIPE after the answer). Node reads
 * the rest of the body and discards it (nothing is buffered), and the connection stays usable for the retry.
 */
function refuse(reply: FastifyReply, budget: InflightBytes): void {
  void reply.code(503).header('content-type', 'application/json').send(JSON.stringify({ error: overLimitMessage(budget.limit) }));
}

/** Route config of the routes whose scope charges them itself (installInflightBytes): the root skips them. */
export const CHARGED_IN_SCOPE = { inflightChargedInScope: true };

/**
 * Every other request that carries a body (generate, a repository load with its files, settings, control
 * routes) is charged the same way, from its headers until its response has gone: each is capped by its
 * route's body limit, but their number was not (a thousand 1 MiB generate bodies, parsed, are ~6 GB).
 * Install on the root before any route.
 */
export function installBodyCharges(app: FastifyInstance, budget: InflightBytes): void {
  app.addHook('onRequest', (req, reply, done) => {
    const config = req.routeOptions.config as Partial<typeof CHARGED_IN_SCOPE> | undefined;
    const length = req.headers['content-length'];
    const body = req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
    if (!body || config?.inflightChargedInScope === true) {
      done();
      return;
    }
    const bytes = requestCharge(req, req.routeOptions.bodyLimit ?? app.initialConfig.bodyLimit ?? 0);
    if (!budget.tryTake(bytes)) {
      refuse(reply, budget);
      return;
    }
    const charge = new Charge(budget, bytes);
    reply.raw.on('close', () => charge.release());
    done();
  });
}

/** The request's charge, on a property Fastify knows of (decorateRequest): a stable object shape, no WeakMap. */
const CHARGE = 'inferscopeCharge';
type Charged = FastifyRequest & { [CHARGE]: Charge | null };

export function costFactor(req: Pick<FastifyRequest, 'headers'>): number {
  // The binary tensor extension announces its JSON header length; everything else is JSON text.
  return req.headers['inference-header-content-length'] !== undefined ? BINARY_COST_FACTOR : JSON_COST_FACTOR;
}

/** What a request is charged when its headers arrive: Content-Length (or the body limit) x its decoding cost. */
export function requestCharge(req: Pick<FastifyRequest, 'headers'>, bodyLimit: number): number {
  const length = Number(req.headers['content-length']);
  const known = Number.isFinite(length) && length >= 0;
  return (known ? Math.min(length, bodyLimit) : bodyLimit) * costFactor(req);
}

/**
 * Installs the charge on the infer scope's routes. One hook and one listener per request, both without a
 * promise (this is the hot path: Fastify's async hooks cost a promise and a microtask each): onRequest
 * refuses or charges, and the response's 'close' (sent, or the connection went away) releases a charge
 * the handler has not taken over and tells a waiting handler that its client is gone. Returns
 * `hold(request)`, which the handler calls first: it then owns the release, and a chunked body is
 * re-charged at its real size.
 */
export function installInflightBytes(scope: FastifyInstance, budget: InflightBytes, bodyLimit: number): (req: FastifyRequest) => Held {
  scope.decorateRequest(CHARGE, null);
  scope.addHook('onRequest', (req, reply, done) => {
    const bytes = requestCharge(req, bodyLimit);
    if (!budget.tryTake(bytes)) {
      refuse(reply, budget);
      return;
    }
    const charge = new Charge(budget, bytes);
    (req as Charged)[CHARGE] = charge;
    // The response's 'close', not the request's: an IncomingMessage closes as soon as its body has been
    // read, before the handler has taken the charge over.
    const res = reply.raw;
    res.on('close', () => {
      if (!charge.owned) charge.release();
      if (!res.writableFinished) charge.gone.abort();
    });
    done();
  });
  return (req) => {
    const charge = (req as Charged)[CHARGE];
    if (!charge) return { release() {}, gone: new ClientGone(), grow: () => true, limit: Infinity, bytes: 0 };
    charge.owned = true;
    if (req.headers['content-length'] === undefined && Buffer.isBuffer(req.body)) {
      // a chunked body: now that it is read, charge what it really is
      const real = req.body.byteLength * costFactor(req);
      budget.resize(charge.bytes, real);
      charge.bytes = real;
    }
    return charge;
  };
}
