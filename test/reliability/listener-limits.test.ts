/**
 * Memory and descriptors a client controls (issue 56), on a real server (port 0) with small timeouts:
 * - a connection that never sends a byte (HTTP, where Socket.IO listens too; metrics; gRPC), one whose
 *   request head or HTTP/2 preface stops half-way, and one that sends the preface but no SETTINGS, are
 *   closed by the server after --handshake-timeout-secs (before: held for ever, one descriptor each);
 * - an HTTP connection between requests and an HTTP/2 session without a call are closed after
 *   --idle-timeout-secs, while a gRPC stream that is open (however quiet) and a Socket.IO websocket stay;
 * - a gRPC message is charged to --max-inflight-bytes from its 5-byte length prefix: one announcing
 *   32 MiB with no room is refused (UNAVAILABLE) although not one byte of it was ever sent, and is not
 *   charged; the held one's charge comes back when its client gives up.
 * Outcomes are polled with a bounded wait; no sleep decides one.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect as tcpConnect, type Socket } from 'node:net';
import { connect as h2Connect, constants, type ClientHttp2Session, type ClientHttp2Stream, type IncomingHttpHeaders } from 'node:http2';
import { startTestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';
import { io } from 'socket.io-client';
import { connectLive } from './live-client.ts';
import { inferenceServiceDefinition } from '../../apps/server/src/grpc/proto';
import { grpcFrame } from '../../apps/server/src/grpc/direct-unary';
import { BINARY_COST_FACTOR } from '../../apps/server/src/infer/inflight-bytes';
import { MiB } from './harness.ts';
import { postHead, rawRequest } from './raw-http.ts';

const BOUND_MS = 15_000;
const PREFACE = 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n';

/** A raw TCP connection that sends `bytes` (maybe nothing) and then nothing more; `closed` once the server closed it. */
function silent(port: number, bytes = ''): { socket: Socket; closed: () => boolean } {
  let closed = false;
  const socket = tcpConnect(port, '127.0.0.1');
  socket.on('error', () => {});
  socket.on('close', () => (closed = true));
  socket.on('data', () => {}); // whatever the server answers (an HTTP/2 server's SETTINGS) is read and dropped
  if (bytes) socket.write(bytes);
  return { socket, closed: () => closed };
}

function h2(address: string): { session: ClientHttp2Session; closed: () => boolean } {
  let closed = false;
  const session = h2Connect(`http://${address}`);
  session.on('error', () => {});
  session.on('close', () => (closed = true));
  return { session, closed: () => closed };
}

function grpcRequest(session: ClientHttp2Session, method: string, extra: Record<string, string> = {}): ClientHttp2Stream {
  const stream = session.request({
    [constants.HTTP2_HEADER_METHOD]: 'POST',
    [constants.HTTP2_HEADER_PATH]: inferenceServiceDefinition()[method].path,
    'content-type': 'application/grpc',
    te: 'trailers',
    ...extra,
  });
  stream.on('error', () => {});
  return stream;
}

/** the 5-byte gRPC prefix of a message of `length` bytes (uncompressed), without the message */
function prefixOf(length: number): Buffer {
  const p = Buffer.alloc(5);
  p.writeUInt32BE(length, 1);
  return p;
}

test('connections that never send, or stop inside their first head or HTTP/2 handshake, are closed on every listener', { timeout: 120_000 }, async () => {
  const server = await startTestServer({ modelControlMode: 'explicit', grpcPort: 0, metricsPort: 0, handshakeTimeoutSecs: 0.2, live: true, gpuCount: 0 });
  const open: Socket[] = [];
  try {
    const metricsPort = Number(new URL(server.metricsUrl!).port);
    const grpcPort = Number(server.grpcAddress!.split(':').pop());
    const cases = {
      'HTTP, nothing sent': silent(server.port),
      'HTTP, half a request head': silent(server.port, 'GET /v2/health/live HTTP/1.1\r\nHost: x\r\n'),
      'metrics, nothing sent': silent(metricsPort),
      'gRPC, nothing sent': silent(grpcPort),
      'gRPC, half the preface': silent(grpcPort, PREFACE.slice(0, 10)),
      'gRPC, the preface but no SETTINGS': silent(grpcPort, PREFACE),
    };
    open.push(...Object.values(cases).map((c) => c.socket));
    await waitFor(() => Object.values(cases).every((c) => c.closed()), `the server to close: ${Object.entries(cases).filter(([, c]) => !c.closed()).map(([k]) => k).join(', ')}`, BOUND_MS);
    // the listeners still serve
    assert.equal((await fetch(`${server.url}/v2/health/live`)).status, 200);
    assert.equal((await fetch(server.metricsUrl!)).status, 200);
    console.log(`listener-limits: ${Object.keys(cases).length} silent or half-open connections closed by the server (handshake timeout 0.2 s)`);
  } finally {
    for (const s of open) s.destroy();
    await server.close();
  }
});

test('idle connections are closed; an open gRPC stream and Socket.IO clients (websocket, long polling) are not', { timeout: 120_000 }, async () => {
  const server = await startTestServer({ modelControlMode: 'explicit', grpcPort: 0, handshakeTimeoutSecs: 0.2, idleTimeoutSecs: 0.5, live: true, gpuCount: 0 });
  const idle = h2(server.grpcAddress!);
  const busy = h2(server.grpcAddress!);
  const live = await connectLive(server.url);
  // long polling: every exchange a plain HTTP request, the first of its connection one engine.io answers
  const polling = io(server.url, { transports: ['polling'], forceNew: true, reconnection: false });
  await new Promise<void>((resolve, reject) => {
    polling.once('snapshot', () => resolve());
    polling.once('connect_error', reject);
  });
  let liveClosed = false;
  live.socket.on('disconnect', () => (liveClosed = true));
  polling.on('disconnect', () => (liveClosed = true));
  try {
    // an HTTP/1.1 keep-alive connection that made one request and then sits
    const keepAlive = silent(server.port, 'GET /v2/health/live HTTP/1.1\r\nHost: x\r\n\r\n');
    // a quiet stream: opened, nothing written (a client waiting for its next request to send)
    const stream = grpcRequest(busy.session, 'ModelStreamInfer');
    const answers: Buffer[] = [];
    stream.on('data', (d: Buffer) => answers.push(d));
    await waitFor(() => idle.closed() && keepAlive.closed(), 'the idle HTTP/2 session and the idle HTTP/1.1 connection to be closed', BOUND_MS);
    // the session with a stream lived through the same idle time, and its stream still serves
    assert.equal(busy.closed(), false, 'a session with an open stream is not idle');
    stream.write(grpcFrame(inferenceServiceDefinition().ModelStreamInfer.requestSerialize({ model_name: 'absent', inputs: [] })));
    await waitFor(() => Buffer.concat(answers).includes(Buffer.from("'absent'")), 'the stream to answer its request', BOUND_MS);
    assert.equal(liveClosed, false, 'neither the websocket nor the polling client is cut');
    assert.ok(live.socket.connected && polling.connected);
    // each message was charged from its prefix while grpc-js read it, and given back once its handler took
    // it: nothing stays charged on an open stream that has been answered
    for (let i = 0; i < 3; i++) stream.write(grpcFrame(inferenceServiceDefinition().ModelStreamInfer.requestSerialize({ model_name: 'absent', inputs: [] })));
    await waitFor(() => Buffer.concat(answers).toString('latin1').split("'absent'").length - 1 >= 4, 'the stream to answer 3 more', BOUND_MS);
    await waitFor(() => server.built.inflight.inUse === 0, 'the stream messages to give their charges back', BOUND_MS);
    // once its stream ends, the session is idle too
    stream.end();
    await waitFor(() => busy.closed(), 'the session whose stream ended to be closed', BOUND_MS);
    // the clients leave first: engine.io, closed with a polling client still there, waits 30 s for it
    live.socket.close();
    polling.close();
    const engine = server.built.live!.gateway.io.engine;
    await waitFor(() => engine.clientsCount === 0, 'the Socket.IO clients to be gone', BOUND_MS);
  } finally {
    live.socket.close();
    polling.close();
    idle.session.destroy();
    busy.session.destroy();
    await server.close();
  }
});

test('a gRPC message announcing 32 MiB with no room in --max-inflight-bytes is refused before one byte of it is sent, and not charged', { timeout: 120_000 }, async () => {
  const server = await startTestServer({ modelControlMode: 'explicit', grpcPort: 0, maxInflightBytes: MiB, live: false, gpuCount: 0 });
  const client = h2(server.grpcAddress!);
  try {
    const inflight = server.built.inflight;
    // a call whose 900 KiB message is under way (its prefix sent, the rest not yet): charged from the prefix
    const held = grpcRequest(client.session, 'ModelInfer');
    held.write(prefixOf(900 * 1024));
    const heldCharge = 900 * 1024 * BINARY_COST_FACTOR;
    await waitFor(() => inflight.inUse === heldCharge, 'the first message to be charged from its prefix', BOUND_MS);
    // the second announces 32 MiB and sends none of it: answered at once, from the prefix alone
    const big = grpcRequest(client.session, 'ModelInfer');
    let answer: IncomingHttpHeaders | undefined;
    big.on('response', (headers) => (answer = headers));
    big.write(prefixOf(32 * MiB));
    await waitFor(() => answer !== undefined, 'the refusal of the 32 MiB message', BOUND_MS);
    assert.equal(answer!['grpc-status'], '14', JSON.stringify(answer)); // UNAVAILABLE, as HTTP's 503
    assert.match(decodeURI(String(answer!['grpc-message'])), /limit of 1048576 bytes of requests in flight \(--max-inflight-bytes\); retry later/);
    assert.equal(inflight.inUse, heldCharge, 'the refused message took nothing');
    // the held call's client gives up: its charge comes back
    held.close(constants.NGHTTP2_CANCEL);
    await waitFor(() => inflight.inUse === 0, 'the cancelled call to give its charge back', BOUND_MS);
    console.log(`listener-limits: 32 MiB gRPC message refused from its prefix with ${heldCharge} B held of a 1 MiB budget; 0 bytes of it sent`);
  } finally {
    client.session.destroy();
    await server.close();
  }
});

test('every HTTP request body is charged before it is read, not only inference bodies: generate and repository bodies get 503 past the budget', { timeout: 120_000 }, async () => {
  const server = await startTestServer({ modelControlMode: 'explicit', maxInflightBytes: MiB, live: false, gpuCount: 0 });
  let held: { socket: Socket } | undefined;
  try {
    const inflight = server.built.inflight;
    // an inference body under way: its head is in, its 200 KiB body not sent (charged as JSON, 6x)
    held = silent(server.port, `${postHead('/v2/models/mlp_classifier/infer', { 'content-type': 'application/json', 'content-length': String(200 * 1024) })}\r\n\r\n`);
    await waitFor(() => inflight.inUse > 0, 'the inference body to be charged from its head', BOUND_MS);
    const used = inflight.inUse;
    for (const path of ['/v2/models/mlp_classifier/generate', '/v2/repository/models/mlp_classifier/load', '/v2/nowhere']) {
      const res = await rawRequest(server.port, postHead(path, { 'content-type': 'application/json', 'content-length': String(512 * 1024) }), Buffer.alloc(0), { timeoutMs: 10_000 });
      assert.equal(res.status, 503, `${path}: ${JSON.stringify(res).slice(0, 200)}`);
      assert.match(res.body, /--max-inflight-bytes/);
      assert.equal(inflight.inUse, used, `${path} took nothing`);
    }
    held.socket.destroy();
    await waitFor(() => inflight.inUse === 0, 'the abandoned body to give its charge back', BOUND_MS);
    // with room, a small body is served as before (and gives its charge back)
    const ok = await rawRequest(server.port, postHead('/v2/nowhere', { 'content-type': 'application/json', 'content-length': '2' }), Buffer.from('{}'), { timeoutMs: 10_000 });
    assert.equal(ok.status, 404);
    await waitFor(() => inflight.inUse === 0, 'the small body to give its charge back', BOUND_MS);
  } finally {
    held?.socket.destroy();
    await server.close();
  }
});

test('a request body or gRPC message that stops arriving is given up after --idle-timeout-secs: its charge comes back; a stream resting between messages stays', { timeout: 120_000 }, async () => {
  const server = await startTestServer({ modelControlMode: 'explicit', grpcPort: 0, idleTimeoutSecs: 0.5, maxInflightBytes: 16 * MiB, live: false, gpuCount: 0 });
  const client = h2(server.grpcAddress!);
  try {
    const inflight = server.built.inflight;
    const answers = new Map<string, IncomingHttpHeaders>();
    const resets = new Map<string, number>();
    const call = (name: string, method: string, bytes?: Buffer, extra?: Record<string, string>): ClientHttp2Stream => {
      const s = grpcRequest(client.session, method, extra);
      s.on('response', (h) => answers.set(name, h));
      s.on('close', () => resets.set(name, s.rstCode ?? -1));
      if (bytes) s.write(bytes);
      return s;
    };
    // unary (answered directly): half a message; no message at all
    call('unary, half a message', 'ModelInfer', Buffer.concat([prefixOf(900 * 1024), Buffer.alloc(1000)]));
    call('unary, headers only', 'ModelInfer');
    call('compressed unary (read by grpc-js), headers only', 'ModelInfer', undefined, { 'grpc-encoding': 'gzip' });
    // a stream (read by grpc-js): half a message; and one resting between messages
    call('stream, half a message', 'ModelStreamInfer', Buffer.concat([prefixOf(900 * 1024), Buffer.alloc(1000)]));
    const resting = call('stream, resting', 'ModelStreamInfer');
    await waitFor(() => inflight.inUse === 2 * 900 * 1024 * BINARY_COST_FACTOR, 'both half messages to be charged from their prefixes', BOUND_MS);
    // and an HTTP body that stops after 1000 of its 200 KiB (charged from Content-Length, 6x as JSON)
    const http = silent(server.port, `${postHead('/v2/models/mlp_classifier/infer', { 'content-type': 'application/json', 'content-length': String(200 * 1024) })}\r\n\r\n${' '.repeat(1000)}`);
    await waitFor(() => inflight.inUse > 2 * 900 * 1024 * BINARY_COST_FACTOR, 'the HTTP body to be charged from its head', BOUND_MS);
    await waitFor(() => http.closed(), 'the server to close the HTTP connection whose body stopped', BOUND_MS);
    // a keep-alive body refused (503) and drained unread: its connection still ends after the idle time
    const refused = silent(server.port, `POST /v2/models/mlp_classifier/infer HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\ncontent-length: ${3 * MiB}\r\n\r\n${' '.repeat(3 * MiB)}`);
    await waitFor(() => refused.closed(), 'the refused keep-alive connection to be closed once idle', BOUND_MS);
    await waitFor(() => resets.size === 4, `the stalled calls to be given up (so far: ${[...resets.keys()].join(', ')})`, BOUND_MS);
    for (const name of ['unary, half a message', 'unary, headers only']) {
      assert.equal(answers.get(name)?.['grpc-status'], '1', `${name}: CANCELLED (${JSON.stringify(answers.get(name))})`);
      assert.match(decodeURI(String(answers.get(name)?.['grpc-message'])), /The request message did not arrive: no byte for 0.5 s \(--idle-timeout-secs\)/);
    }
    assert.equal(resets.get('stream, half a message'), constants.NGHTTP2_CANCEL);
    assert.equal(resets.get('compressed unary (read by grpc-js), headers only'), constants.NGHTTP2_CANCEL);
    await waitFor(() => inflight.inUse === 0, 'the stalled messages to give their charges back', BOUND_MS);
    assert.equal(resets.has('stream, resting'), false, 'a stream between messages is not a stalled message');
    assert.equal(client.closed(), false);
    resting.close(constants.NGHTTP2_CANCEL);
  } finally {
    client.session.destroy();
    await server.close();
  }
});
