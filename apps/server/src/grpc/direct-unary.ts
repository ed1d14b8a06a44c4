/**
 * Unary calls answered straight from their HTTP/2 stream, on the grpc-js server's own sockets and with
 * the handlers registered on it: the request is read and framed here, decoded and encoded with the
 * service definition's serializers (so a message reads exactly as grpc-js would hand it over), and
 * the answer leaves as grpc-js sends one (headers, one length-prefixed message, trailers; an error as a
 * trailers-only response with the status percent-encoded).
 *
 * Why: for each call grpc-js builds an intercepting call, a Metadata object of every header, a stream
 * decoder, a read queue, a listener chain, a writable-stream wrapper and two promise turns. Under load on
 * ModelInfer that was ~15 µs of main-thread CPU a call out of ~65 for a grpc-js server that does nothing
 * else (bench/serve/README.md, "gRPC without grpc-js's call machinery"); the main thread is what a gRPC
 * server of this shape is bound by.
 *
 * Which calls come here: a unary method of the service, `content-type: application/grpc[+proto]`, and no
 * request compression (`grpc-encoding` absent or identity). Everything else (the streaming methods,
 * compressed requests, a wrong content type, an unknown path) goes to grpc-js's own handler unchanged, as
 * does every call when the grpc-js internals this relies on are not as expected (another grpc-js version).
 *
 * What grpc-js does and this keeps: `grpc-timeout` (the call is cancelled and answered DEADLINE_EXCEEDED
 * when it passes; a malformed value is INTERNAL; unlike grpc-js, one longer than a timer holds is held at
 * the longest, on the calls left to grpc-js too, not truncated to 32 bits), grpc.max_receive_message_length (RESOURCE_EXHAUSTED
 * before the message is buffered), exactly one request message (none or a second is UNIMPLEMENTED, in
 * grpc-js's words), a message that does not decode (INTERNAL), a handler that throws (UNKNOWN), the
 * call's `cancelled` flag and 'cancelled' event when the client resets the stream or the connection
 * closes, and `metadata` (built only when a handler reads it: the control guard does).
 *
 * What this adds: the message is charged to --max-inflight-bytes from its 5-byte length prefix, before one
 * byte of it is buffered (grpc/admission.ts); past the limit the call is answered UNAVAILABLE at once and
 * the bytes that still arrive are dropped as they come. Before, the whole message was read and copied
 * first: eight refused 32 MiB calls grew the server by ~500 MB. The calls left to grpc-js are charged the
 * same way while grpc-js reads them (grpc/stream-admission.ts). A request message that stops arriving
 * (or never starts) is given up after --idle-timeout-secs without a byte (grpc/message-stall.ts), so a
 * stalled client holds neither its charge nor its connection for ever.
 */
import type { Server, ServerUnaryCall, ServiceDefinition, UntypedServiceImplementation, ServiceError } from '@grpc/grpc-js';
import { Metadata, status as Status } from '@grpc/grpc-js';
import { constants as h2, type IncomingHttpHeaders, type ServerHttp2Stream } from 'node:http2';
import { InferError } from '@inferscope/core';
import { LONGEST_TIMER_MS, timerDelayMs } from '@inferscope/core/clock';
import type { Held, InflightBytes } from '../infer/inflight-bytes';
import { admitDeclaredMessage, type PrefixCharged } from './admission';
import { http2ServersOf } from './http2-servers';
import { admitStreamMessages } from './stream-admission';
import type { MessageStallWatch, Stallable } from './message-stall';

type UnaryHandler = (call: ServerUnaryCall<unknown, unknown>, callback: (err: Partial<ServiceError> | null, value?: unknown) => void) => void;

interface Route {
  path: string;
  deserialize(bytes: Buffer): unknown;
  serialize(value: unknown): Buffer;
  handler: UnaryHandler;
  maxReceiveBytes: number;
  /** --max-inflight-bytes, charged from each message's prefix */
  inflight: InflightBytes;
  stall: MessageStallWatch;
}

type StreamListener = (stream: ServerHttp2Stream, headers: IncomingHttpHeaders, ...rest: unknown[]) => void;

/** grpc-js's unit letters of `grpc-timeout` (up to 8 digits and a unit), in milliseconds */
const TIMEOUT_UNIT_MS: Record<string, number> = { H: 3_600_000, M: 60_000, S: 1000, m: 1, u: 0.001, n: 0.000001 };
const TIMEOUT = /^(\d{1,8})\s*([HMSmun])$/;

/**
 * grpc-js truncates a timeout's milliseconds to 32 bits, so one of ~25 days or more fell due at once or
 * at an arbitrary time; here a deadline past what a timer holds is held at it, on both paths (the header
 * of a call left to grpc-js is rewritten to that bound in a value its parser takes).
 */
const LONGEST_TIMEOUT_HEADER = `${Math.floor(LONGEST_TIMER_MS / 1000)}S`;

/** a `grpc-timeout` value in ms, held at LONGEST_TIMER_MS; null when it is not one */
function timeoutMs(value: string): number | null {
  const match = TIMEOUT.exec(value.trim());
  return match === null ? null : timerDelayMs(Math.ceil(Number(match[1]) * TIMEOUT_UNIT_MS[match[2]]));
}

const PREFIX_BYTES = 5;
const CONTENT_TYPE = 'application/grpc+proto';

/** Response headers as grpc-js sends them (it advertises the request encodings it can decompress). */
const RESPONSE_HEADERS = {
  ':status': 200,
  'content-type': CONTENT_TYPE,
  'grpc-accept-encoding': 'identity,deflate,gzip',
  'grpc-encoding': 'identity',
};
const OK_TRAILERS = { 'grpc-status': '0', 'grpc-message': 'OK' };

/**
 * Answer the service's unary methods directly on every socket `server` listens on (call after
 * `bindAsync`). `handlers` are the ones registered with addService for `definition`. Returns how many of
 * the server's HTTP/2 listeners now do so (0 when grpc-js's internals are not as expected: grpc-js then
 * answers everything, only slower).
 */
export interface DirectUnaryLimits {
  /** grpc.max_receive_message_length (a negative value: none) */
  maxReceiveBytes: number;
  /** --max-inflight-bytes, charged from each message's prefix */
  inflight: InflightBytes;
  /** a call whose request message stops arriving is given up after this long without a byte (--idle-timeout-secs) */
  stall: MessageStallWatch;
}

export function answerUnaryDirectly(server: Server, definition: ServiceDefinition, handlers: UntypedServiceImplementation, limits: DirectUnaryLimits): number {
  const { maxReceiveBytes, inflight, stall } = limits;
  const routes = new Map<string, Route>();
  for (const [name, method] of Object.entries(definition)) {
    const handler = handlers[name];
    if (method.requestStream || method.responseStream || typeof handler !== 'function') continue;
    routes.set(method.path, {
      path: method.path,
      deserialize: method.requestDeserialize,
      serialize: method.responseSerialize as (value: unknown) => Buffer,
      handler: handler as UnaryHandler,
      maxReceiveBytes,
      inflight,
      stall,
    });
  }
  let taken = 0;
  for (const http2Server of http2ServersOf(server)) {
    const theirs = http2Server.listeners('stream') as StreamListener[];
    // grpc-js registers exactly one 'stream' listener per listening server; anything else is a layout
    // this was not written against
    if (theirs.length !== 1) continue;
    const grpcJs = theirs[0];
    http2Server.removeListener('stream', grpcJs);
    http2Server.on('stream', (stream: ServerHttp2Stream, headers: IncomingHttpHeaders, ...rest: unknown[]) => {
      const route = routes.get(headers[':path'] ?? '');
      if (route !== undefined && takes(headers)) {
        new DirectUnaryCall(stream, headers, route);
        return;
      }
      const timeout = headers['grpc-timeout'];
      if (typeof timeout === 'string' && timeoutMs(timeout) === LONGEST_TIMER_MS) headers['grpc-timeout'] = LONGEST_TIMEOUT_HEADER;
      grpcJs.call(http2Server, stream, headers, ...rest);
      // after grpc-js has set the stream up (synchronously: its 'data' listener is on, the stream paused)
      admitStreamMessages(stream, inflight, stall, route !== undefined);
    });
    taken++;
  }
  return taken;
}

/** One gRPC message on the wire: flag 0 (not compressed), its length big-endian in 4 bytes, the message. */
export function grpcFrame(message: Uint8Array): Buffer {
  const frame = Buffer.allocUnsafe(PREFIX_BYTES + message.length);
  frame[0] = 0;
  frame.writeUInt32BE(message.length, 1);
  frame.set(message, PREFIX_BYTES);
  return frame;
}

function takes(headers: IncomingHttpHeaders): boolean {
  const type = headers['content-type'];
  const encoding = headers['grpc-encoding'];
  return typeof type === 'string' && type.startsWith('application/grpc') && (encoding === undefined || encoding === 'identity');
}

/**
 * One unary call: reads its one message, runs the handler, sends one answer. What a handler sees of it is
 * what the service's handlers use of grpc-js's ServerUnaryCall: request, metadata, cancelled and the
 * 'cancelled' event.
 */
class DirectUnaryCall implements PrefixCharged, Stallable {
  request: unknown = undefined;
  lastByteMs = performance.now();
  cancelled = false;
  private readonly chunks: Buffer[] = [];
  private bytes = 0;
  /** the message's length from its prefix, once 5 bytes are in */
  private length = -1;
  /** an answer was sent (or the stream is gone): nothing more is read or written */
  private done = false;
  private deadline: NodeJS.Timeout | undefined;
  private cancelListeners: Array<() => void> | undefined;
  private metadataRead: Metadata | undefined;
  /** the message's share of --max-inflight-bytes, taken from its prefix; released when answered unless a handler took it */
  private charge: Held | undefined;

  constructor(
    private readonly stream: ServerHttp2Stream,
    private readonly headers: IncomingHttpHeaders,
    private readonly route: Route,
  ) {
    stream.on('error', ignore); // an error is followed by 'close', which cancels the call
    stream.once('close', this.onClose.bind(this));
    stream.on('data', this.onData.bind(this));
    stream.once('end', this.onEnd.bind(this));
    route.stall.watch(this);
    const timeout = headers['grpc-timeout'];
    if (timeout !== undefined) this.startDeadline(String(timeout));
  }

  /** The prefix's charge, for the handler to keep until it has answered (it then releases it). */
  takePrefixCharge(): Held | undefined {
    const held = this.charge;
    this.charge = undefined;
    return held;
  }

  get metadata(): Metadata {
    return (this.metadataRead ??= Metadata.fromHttp2Headers(this.headers));
  }

  on(event: 'cancelled', listener: () => void): this {
    if (event === 'cancelled') (this.cancelListeners ??= []).push(listener);
    return this;
  }

  removeListener(event: 'cancelled', listener: () => void): this {
    const at = this.cancelListeners?.indexOf(listener) ?? -1;
    if (event === 'cancelled' && at >= 0) this.cancelListeners!.splice(at, 1);
    return this;
  }

  private startDeadline(value: string): void {
    const ms = timeoutMs(value);
    if (ms === null) {
      this.fail(Status.INTERNAL, `Invalid grpc-timeout value "${value}"`);
      return;
    }
    this.deadline = setTimeout(() => {
      this.fail(Status.DEADLINE_EXCEEDED, 'Deadline exceeded');
      this.cancel();
    }, ms);
  }

  /** the request message stopped arriving (message-stall.ts) */
  stalled(): void {
    this.refuse(Status.CANCELLED, `The request message did not arrive: no byte for ${this.route.stall.ms / 1000} s (--idle-timeout-secs)`);
  }

  private onData(chunk: Buffer): void {
    if (this.done) return;
    this.lastByteMs = performance.now();
    this.chunks.push(chunk);
    this.bytes += chunk.length;
    if (this.length < 0 && this.bytes >= PREFIX_BYTES) {
      if (this.chunks.length > 1) this.chunks.splice(0, this.chunks.length, Buffer.concat(this.chunks));
      const head = this.chunks[0];
      if (head[0] !== 0) {
        // the gRPC spec: a compressed message without a grpc-encoding is a protocol error
        this.fail(Status.INTERNAL, 'Received a compressed message but no grpc-encoding was given');
        return;
      }
      this.length = head.readUInt32BE(1);
      // a negative limit is none, as in grpc-js's options
      if (this.route.maxReceiveBytes >= 0 && this.length > this.route.maxReceiveBytes) {
        this.refuse(Status.RESOURCE_EXHAUSTED, `Received message larger than max (${this.length} vs ${this.route.maxReceiveBytes})`);
        return;
      }
      // before the message's bytes are kept: the prefix (and at most the rest of its first chunk) is all
      // that was buffered
      const held = admitDeclaredMessage(this.route.inflight, this.length);
      if (held instanceof InferError) {
        this.refuse(Status.UNAVAILABLE, held.message);
        return;
      }
      this.charge = held;
    }
    if (this.length >= 0 && this.bytes > PREFIX_BYTES + this.length) {
      this.fail(Status.UNIMPLEMENTED, `Received a second request message for server streaming method ${this.route.path}`);
    }
  }

  private onEnd(): void {
    this.route.stall.unwatch(this);
    if (this.done) return;
    if (this.length < 0 || this.bytes < PREFIX_BYTES + this.length) {
      this.fail(Status.UNIMPLEMENTED, `Received no request message for server streaming method ${this.route.path}`);
      return;
    }
    const frame = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks, this.bytes);
    this.chunks.length = 0;
    try {
      this.request = this.route.deserialize(frame.subarray(PREFIX_BYTES));
    } catch {
      this.fail(Status.INTERNAL, 'Error deserializing request');
      return;
    }
    try {
      this.route.handler(this as unknown as ServerUnaryCall<unknown, unknown>, this.answer.bind(this));
    } catch {
      this.fail(Status.UNKNOWN, 'Unknown error');
    }
  }

  /** the handler's callback: the first answer is sent, later ones (and any after a cancel) are dropped */
  private answer(err: Partial<ServiceError> | null, value?: unknown): void {
    if (this.done || this.stream.destroyed || this.stream.closed) return;
    if (err) {
      this.fail(err.code ?? Status.UNKNOWN, err.details ?? err.message ?? 'Unknown error');
      return;
    }
    let message: Buffer;
    try {
      message = this.route.serialize(value);
    } catch {
      this.fail(Status.INTERNAL, 'Error serializing response');
      return;
    }
    this.finish();
    const frame = grpcFrame(message);
    const stream = this.stream;
    stream.respond(RESPONSE_HEADERS, { waitForTrailers: true });
    stream.once('wantTrailers', () => stream.sendTrailers(OK_TRAILERS));
    stream.end(frame);
  }

  /** a trailers-only answer with this status (nothing was sent before it) */
  private fail(code: Status, details: string): void {
    if (this.done) return;
    this.finish();
    if (this.stream.destroyed || this.stream.closed || this.stream.headersSent) return;
    this.stream.respond({
      ':status': 200,
      'content-type': CONTENT_TYPE,
      'grpc-status': String(code),
      'grpc-message': encodeURI(details),
    }, { endStream: true });
  }

  /**
   * A refusal before the message was read: answered, then the stream is reset with NO_ERROR, which HTTP/2
   * provides for a server that answered before the request was complete (RFC 9113 8.1): the client stops
   * sending the rest instead of uploading it for the server to drop.
   */
  private refuse(code: Status, details: string): void {
    this.fail(code, details);
    if (!this.stream.destroyed && !this.stream.closed) this.stream.close(h2.NGHTTP2_NO_ERROR);
  }

  private finish(): void {
    this.done = true;
    this.route.stall.unwatch(this);
    this.chunks.length = 0;
    this.charge?.release();
    this.charge = undefined;
    if (this.deadline !== undefined) clearTimeout(this.deadline);
  }

  private onClose(): void {
    if (!this.done) this.finish();
    this.cancel();
  }

  /** the 'cancelled' report, once; grpc-js gives it after every call's stream closes, answered or not */
  private cancel(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    const listeners = this.cancelListeners;
    this.cancelListeners = undefined;
    if (listeners) for (const fn of listeners) fn();
  }
}

function ignore(): void {}
