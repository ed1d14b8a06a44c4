/**
 * Timeouts on every listener (HTTP/1.1 with its Socket.IO upgrades, the metrics port, the gRPC HTTP/2
 * port), so a connection costs the server a descriptor only while it does something.
 *
 * Why: node closes an HTTP/1.1 connection whose request head stops half-way (headersTimeout), but not one
 * that never sends a byte: it never began a request, so no request timer runs (measured: 100 of 100 such
 * connections still open after 205 s). Likewise an HTTP/2 connection that never finishes its preface and
 * SETTINGS, and an HTTP/2 session with no stream, were held for ever (500 of 500 after 205 s). Each was a
 * file descriptor and a socket's buffers of the server, and a client could open them until the process ran
 * out of descriptors.
 *
 * - handshake: a new connection must complete its first request head (HTTP/1.1, metrics, Socket.IO's
 *   polling requests and websocket upgrade) or its HTTP/2 preface and SETTINGS (gRPC) within `handshakeMs`,
 *   or it is destroyed;
 * - idle: an HTTP/1.1 connection between requests (node's keepAliveTimeout) or whose request body stops
 *   arriving, and an HTTP/2 session with no open stream, are closed after `idleMs`. A request being served, a gRPC call or stream (however long,
 *   and whether or not bytes flow), and an upgraded websocket (Socket.IO pings it; engine.io closes it when
 *   pongs stop) are never cut by these.
 */
import type { Server as HttpServer, IncomingMessage, ServerResponse } from 'node:http';
import type { Http2Server, Http2Session, ServerHttp2Stream } from 'node:http2';
import type { Socket } from 'node:net';
import { timerDelayMs } from '@inferscope/core/clock';

export interface ConnectionTimeouts {
  /** time a new connection has to complete its first request head or its HTTP/2 handshake */
  handshakeMs: number;
  /** time an HTTP/1.1 connection may sit between requests, or an HTTP/2 session without a stream */
  idleMs: number;
}

/** The defaults of --handshake-timeout-secs and --idle-timeout-secs, for every listener. */
export const DEFAULT_TIMEOUT_SECS = { handshake: 10, idle: 120 } as const;

export const DEFAULT_TIMEOUTS: ConnectionTimeouts = { handshakeMs: DEFAULT_TIMEOUT_SECS.handshake * 1000, idleMs: DEFAULT_TIMEOUT_SECS.idle * 1000 };

/** A connection's handshake timer: destroys it (a socket, an HTTP/2 session) unless `done` is called first. */
function handshakeTimer(connection: Socket | Http2Session, ms: number): () => void {
  const timer = setTimeout(() => connection.destroy(), timerDelayMs(ms));
  timer.unref();
  const done = (): void => clearTimeout(timer);
  connection.once('close', done);
  return done;
}

/**
 * An HTTP/1.1 server (node's, or Fastify's `app.server`). The handshake ends with the connection's first
 * request ('request', or 'upgrade' for a websocket, 'checkContinue'/'checkExpectation' for an Expect
 * header); node's own keepAliveTimeout then closes it between requests, and headersTimeout (set to the
 * handshake time) a later head that stops half-way.
 */
export function guardHttp1(server: HttpServer, t: ConnectionTimeouts): void {
  server.keepAliveTimeout = timerDelayMs(t.idleMs);
  // a later request's head gets as long as the first's (node checks it on its own sweep, every 30 s)
  server.headersTimeout = timerDelayMs(t.handshakeMs);
  const pending = new WeakMap<Socket, () => void>();
  server.on('connection', (socket: Socket) => pending.set(socket, handshakeTimer(socket, t.handshakeMs)));
  const started = (req: { socket: Socket }): void => {
    const done = pending.get(req.socket);
    if (done === undefined) return;
    pending.delete(req.socket);
    done();
  };
  // prependListener: before Socket.IO's own 'upgrade' and 'request' listeners, which may answer at once
  for (const event of ['request', 'upgrade', 'checkContinue', 'checkExpectation'] as const) server.prependListener(event, started);
  for (const event of ['request', 'checkContinue'] as const) {
    server.prependListener(event, (req: IncomingMessage, res: ServerResponse) => watchBody(server, req, res, t.idleMs));
  }
}

/**
 * A request body that stops arriving: the socket is closed after `ms` without a byte (node's own
 * requestTimeout, which Fastify turns off, would bound only the whole request's time). Its share of
 * --max-inflight-bytes, charged from Content-Length, comes back then instead of never.
 */
function watchBody(server: HttpServer, req: IncomingMessage, res: ServerResponse, ms: number): void {
  const length = req.headers['content-length'];
  if (req.headers['transfer-encoding'] === undefined && (length === undefined || length === '0')) return;
  const socket = req.socket;
  // no 'timeout' listener: node's http server then destroys the socket
  socket.setTimeout(timerDelayMs(ms));
  // a body refused unread is drained after the answer, when node has set the keep-alive timeout: keep it
  req.once('end', () => socket.setTimeout(res.writableFinished ? server.keepAliveTimeout : 0));
}

/**
 * An HTTP/2 server (each of grpc-js's). The handshake ends when the client's SETTINGS arrive (they follow
 * its preface); a session then lives while it has a stream open and is closed (GOAWAY, then the socket)
 * after `idleMs` without one.
 */
export function guardHttp2(server: Http2Server, t: ConnectionTimeouts): void {
  server.on('session', (session: Http2Session) => {
    // the session, not session.socket: node refuses to let an HTTP/2 socket be handled directly
    const handshakeDone = handshakeTimer(session, t.handshakeMs);
    session.once('remoteSettings', handshakeDone);
    idleClose(session, t.idleMs);
  });
}

/** Closes `session` once it has had no open stream for `ms`; every stream, of any handler, counts. */
function idleClose(session: Http2Session, ms: number): void {
  let open = 0;
  const idle = setTimeout(() => {
    if (open === 0 && !session.closed && !session.destroyed) session.close();
  }, timerDelayMs(ms));
  idle.unref();
  // one listener per session, shared by its streams: nothing is allocated per call
  const closed = (): void => {
    if (--open === 0) idle.refresh();
  };
  session.on('stream', (stream: ServerHttp2Stream) => {
    open++;
    stream.once('close', closed);
  });
  session.once('close', () => clearTimeout(idle));
}
