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
  request(): { write(answer: unknown): void; done(): void } {
    let pending = 0;
    let finished = false;
    const settle = (): void => {
      if (finished && pending === 0) this.sent();
    };
    const written = (): void => {
      pending--;
      settle();
    };
    return {
      write: (answer) => {
        if (this.call.cancelled) return;
        pending++;
        this.call.write(answer, written);
      },
      done: () => {
        if (finished) return;
        finished = true;
        settle();
      },
    };
  }

  private sent(): void {
    this.outstanding--;
    if (this.paused && this.outstanding < this.max) {
      this.paused = false;
      this.call.resume();
    }
  }
}
