/**
 * Backpressure for a ModelStreamInfer call: at most MAX_OUTSTANDING_PER_STREAM requests of one stream are
 * between "read from the client" and "answer sent to the client" at once. Past that the stream is paused:
 * grpc-js then stops asking HTTP/2 for more messages, the client's flow-control window fills and its
 * writes wait; reading resumes as answers leave.
 *
 * Why: without it a client that writes requests and never reads its answers had the server read every
 * request, run it and queue every answer in memory (+611 MB for 150 answers of 4 MiB). An answer counts
 * until grpc-js reports it written to the HTTP/2 stream, which waits while the client's receive window is
 * full, so a client that does not read holds at most this many requests and answers in the server (plus
 * what HTTP/2 and TCP buffer).
 *
 * That bounds requests, not the responses of one request: a decoupled model may send hundreds for one
 * request (issue 56: 200 of 1 MiB cost +192 MB). Those are bounded at their source: `write(answer, left)`
 * calls `left` when the write's callback runs, which gives the model's sender room to send again
 * (backends/stub/send-window.ts), so a stuck client holds at most a send window of each request.
 *
 * Only flow control lives here: which answers go out, and that each request gets its final one, stays with
 * the stream handler (grpc/service.ts), which calls `taken()` per request read, `write()` per response
 * (a decoupled model sends 0..n) and `done()` once the request has its last one: the request stops
 * counting when that is called and every response it wrote has been handed to HTTP/2.
 */
import type { ServerDuplexStream } from '@grpc/grpc-js';

export const MAX_OUTSTANDING_PER_STREAM = 16;

type FlowCall = Pick<ServerDuplexStream<unknown, unknown>, 'pause' | 'resume' | 'write' | 'cancelled'>;

export class StreamFlow {
  private outstanding = 0;
  private paused = false;

  constructor(
    private readonly call: FlowCall,
    private readonly max = MAX_OUTSTANDING_PER_STREAM,
  ) {}

  /** requests of this stream read and not yet answered-and-sent */
  get inFlight(): number {
    return this.outstanding;
  }

  /** A request was read from the stream: it counts until its answer has been sent. */
  taken(): void {
    this.outstanding++;
    if (!this.paused && this.outstanding >= this.max) {
      this.paused = true;
      this.call.pause();
    }
  }

  /**
   * One request's responses: `write` each, then `done`. A cancelled call writes nothing (grpc-js would
   * drop it, and never call back), so its requests stop counting at once; a cancelled stream reads no more.
   */
  request(): RequestAnswers {
    return new RequestAnswers(this.call, () => this.sent());
  }

  private sent(): void {
    this.outstanding--;
    if (this.paused && this.outstanding < this.max) {
      this.paused = false;
      this.call.resume();
    }
  }
}

/**
 * One request's answers on the stream (StreamFlow.request). A class, not closures made per request: under
 * tsx each closure bound to a name pays a defineProperty (ARCHITECTURE.md, hot paths).
 */
export class RequestAnswers {
  private pending = 0;
  private finished = false;

  constructor(
    private readonly call: FlowCall,
    private readonly sent: () => void,
  ) {}

  /**
   * `left` (a decoupled model's response: backends/stub/send-window.ts) is called with the write's
   * callback, once HTTP/2 took the message within the client's flow-control window.
   */
  write(answer: unknown, left?: () => void): void {
    if (this.call.cancelled) return left?.();
    this.pending++;
    this.call.write(answer, () => {
      this.pending--;
      left?.();
      this.settle();
    });
  }

  done(): void {
    if (this.finished) return;
    this.finished = true;
    this.settle();
  }

  private settle(): void {
    if (this.finished && this.pending === 0) this.sent();
  }
}
