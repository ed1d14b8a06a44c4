/**
 * --max-inflight-bytes for the gRPC calls grpc-js reads itself (ModelStreamInfer, and compressed unary
 * calls): each message is charged from its 5-byte length prefix before grpc-js buffers it, as the direct
 * unary path does (grpc/direct-unary.ts). grpc-js reads a whole message (up to
 * grpc.max_receive_message_length) before any handler sees it, so without this every open stream could
 * hold a message of the size limit outside the budget.
 *
 * Past the limit a stream's next message is not refused but waited for: its HTTP/2 stream is paused, the
 * client's flow-control window fills and its writes wait, until enough of the budget comes back (a
 * refusal would have to name the request, and its id is inside the bytes not read). A client that gives
 * up (deadline, cancel) closes the stream and stops waiting.
 *
 * The charge is held until the message has been taken by its handler: grpc-js pauses the HTTP/2 stream
 * after each message and resumes it when the handler asks for the next, so the message is released at
 * that resume (or when the stream closes), after the handler charged the decoded message itself
 * (grpc/admission.ts). This watches the HTTP/2 stream beside grpc-js (a second 'data' listener): it reads
 * the same chunks and changes none of them. A message that stops arriving half-way for --idle-timeout-secs
 * resets the stream (grpc/message-stall.ts): its charge is not held for ever.
 */
import { constants, type ServerHttp2Stream } from 'node:http2';
import { BINARY_COST_FACTOR, type Held, type InflightBytes } from '../infer/inflight-bytes';
import { admitDeclaredMessage } from './admission';
import { InferError } from '@inferscope/core';
import type { MessageStallWatch, Stallable } from './message-stall';

const PREFIX_BYTES = 5;

/** `unary`: the call owes its one message from the start (a stream may rest before its first). */
export function admitStreamMessages(stream: ServerHttp2Stream, budget: InflightBytes, stall: MessageStallWatch, unary: boolean): void {
  const gate = new StreamMessageGate(stream, budget, stall);
  if (unary) gate.owed();
}

class StreamMessageGate implements Stallable {
  lastByteMs = 0;
  private readonly prefix = Buffer.alloc(PREFIX_BYTES);
  private prefixFilled = 0;
  /** bytes of the current message still to come (after its prefix) */
  private remaining = 0;
  /** the message being received, charged; undefined while it waits for room */
  private current: Held | undefined;
  /** messages fully received, charged until the handler has taken them */
  private received: Held[] = [];
  /** the length of the message waiting for room (-1: none), and the waiter's cancel */
  private waitingFor = -1;
  private cancelWait: (() => void) | undefined;
  /** the next 'resume' is this gate's own (room was found), not grpc-js asking for a message */
  private ownResume = false;
  private closed = false;

  constructor(
    private readonly stream: ServerHttp2Stream,
    private readonly budget: InflightBytes,
    /** a message that stops arriving half-way is given up (message-stall.ts); between messages a stream may rest */
    private readonly stall: MessageStallWatch,
  ) {
    stream.on('data', (chunk: Buffer) => this.onData(chunk));
    stream.on('resume', () => this.onResume());
    stream.once('close', () => this.onClose());
  }

  /** a message is owed from now (a unary call's one message) */
  owed(): void {
    this.lastByteMs = performance.now();
    this.stall.watch(this);
  }

  /** a message stopped arriving half-way: the stream is reset (grpc-js cancels the call), its charges return */
  stalled(): void {
    if (!this.stream.destroyed && !this.stream.closed) this.stream.close(constants.NGHTTP2_CANCEL);
  }

  private onData(chunk: Buffer): void {
    if (this.closed) return;
    this.lastByteMs = performance.now();
    let at = 0;
    while (at < chunk.byteLength) {
      if (this.remaining > 0) {
        const n = Math.min(this.remaining, chunk.byteLength - at);
        this.remaining -= n;
        at += n;
        if (this.remaining === 0) this.messageEnd();
        continue;
      }
      const n = Math.min(PREFIX_BYTES - this.prefixFilled, chunk.byteLength - at);
      chunk.copy(this.prefix, this.prefixFilled, at, at + n);
      this.prefixFilled += n;
      at += n;
      if (this.prefixFilled < PREFIX_BYTES) {
        this.stall.watch(this);
        return;
      }
      this.prefixFilled = 0;
      this.remaining = this.prefix.readUInt32BE(1);
      if (!this.charge(this.remaining)) this.wait(this.remaining);
      else this.stall.watch(this);
      if (this.remaining === 0) this.messageEnd();
    }
  }

  private charge(length: number): boolean {
    if (!this.budget.fits(length * BINARY_COST_FACTOR)) return false;
    const held = admitDeclaredMessage(this.budget, length);
    if (held instanceof InferError) return false;
    this.current = held;
    return true;
  }

  /** No room for the message: what has not arrived waits in HTTP/2 (the chunk in hand grpc-js has already). */
  private wait(length: number): void {
    this.stall.unwatch(this); // the wait is this server's, not the client's
    this.waitingFor = length;
    this.stream.pause();
    this.cancelWait = this.budget.whenFree(() => {
      if (this.closed) return true;
      if (!this.charge(this.waitingFor)) return false;
      this.stopWaiting();
      this.lastByteMs = performance.now();
      this.stall.watch(this);
      this.ownResume = true;
      this.stream.resume();
      return true;
    });
  }

  private stopWaiting(): void {
    this.waitingFor = -1;
    this.cancelWait?.();
    this.cancelWait = undefined;
  }

  private messageEnd(): void {
    this.stall.unwatch(this);
    // a message that arrived whole while it waited (it fit in what HTTP/2 had let through): it is here,
    // uncharged; its handler charges (or refuses) it decoded. grpc-js has paused the stream after it.
    if (this.waitingFor >= 0) this.stopWaiting();
    if (this.current !== undefined) this.received.push(this.current);
    this.current = undefined;
  }

  /** grpc-js resumes the stream when its handler asks for the next message: the ones before were taken. */
  private onResume(): void {
    if (this.ownResume) {
      this.ownResume = false;
      return;
    }
    if (this.waitingFor >= 0) {
      // grpc-js asks for more while the message waits for room: paused again (what came meanwhile is one window)
      this.stream.pause();
      return;
    }
    for (const held of this.received) held.release();
    this.received = [];
  }

  private onClose(): void {
    this.closed = true;
    this.stall.unwatch(this);
    this.stopWaiting();
    this.current?.release();
    this.current = undefined;
    for (const held of this.received) held.release();
    this.received = [];
  }
}
