/**
 * A bound on the memory that accepted inference requests hold at once: their bodies and what decoding
 * makes of them, from the moment the request arrives until it is answered.
 *
 * Why: each request is capped (--http-max-input-size, 64 MiB) but their number is not. Four concurrent
 * 62 MiB JSON bodies took RSS +1.3 GB (JSON.parse builds a JS array of boxed numbers: ~5x the text), so
 * a handful of clients could take the process down although every request was "within the limit".
 *
 * How (over HTTP: http/inflight-hooks.ts; gRPC charges from each message's length prefix): a request is
 * charged when its headers arrive, before one byte of the body is buffered:
 * Content-Length x the cost factor of its encoding (JSON text: 6x, measured 5.3x; binary tensors: 2x, the
 * body plus the typed arrays decoded from it); a chunked body of unknown length is charged the body limit
 * until it has been read, then its real size. Above the total the request is refused at once with 503
 * (the client may retry: nothing was read or queued). The charge is released when the answer is sent, or
 * when the connection closes before the handler ran; a request in the scheduler keeps its charge until
 * the scheduler answers it (an aborted client's tensors are still queued).
 *
 * The default total, min(1 GiB, a quarter of the host's memory), admits thousands of ordinary requests
 * (a 784-float image is 3 KiB binary, ~8 KiB JSON) and at least two of the largest JSON bodies at once.
 */
import { totalmem } from 'node:os';
import { ClientGone, type CancelSignal } from './cancellable';

export const JSON_COST_FACTOR = 6;
export const BINARY_COST_FACTOR = 2;

export function defaultInflightLimit(): number {
  return Math.min(1024 * 1024 * 1024, Math.floor(totalmem() / 4));
}

export class InflightBytes {
  private used = 0;
  /** requests refused since start (statistics, tests) */
  refused = 0;
  /** readers waiting for room (a gRPC stream's next message: grpc/stream-admission.ts), oldest first */
  private readonly waiters: Array<() => boolean> = [];

  constructor(readonly limit: number) {}

  get inUse(): number {
    return this.used;
  }

  /** readers waiting for room now (statistics, tests) */
  get waiting(): number {
    return this.waiters.length;
  }

  /**
   * Whether `bytes` would be admitted now. A single request larger than the whole budget is admitted when
   * nothing else is in flight: the per-request body limit bounds it, and refusing it forever would be a
   * silent configuration trap.
   */
  fits(bytes: number): boolean {
    return this.used === 0 || this.used + bytes <= this.limit;
  }

  /** Takes `bytes` of the budget, or returns false (nothing taken) when it would pass the limit. */
  tryTake(bytes: number): boolean {
    if (!this.fits(bytes)) {
      this.refused++;
      return false;
    }
    this.used += bytes;
    return true;
  }

  give(bytes: number): void {
    this.used = Math.max(0, this.used - bytes);
    if (this.waiters.length > 0) this.wake();
  }

  /** A charge changes size (a chunked body, once its real length is known). */
  resize(from: number, to: number): void {
    this.used = Math.max(0, this.used - from + to);
    if (to < from && this.waiters.length > 0) this.wake();
  }

  /**
   * Calls `retry` whenever bytes come back, oldest waiter first, until it returns true (it took what it
   * needed); a waiter that still does not fit stops the round, so a large one is not passed for ever by
   * small ones. Returns the cancel (the waiter went away).
   */
  whenFree(retry: () => boolean): () => void {
    this.waiters.push(retry);
    return () => {
      const at = this.waiters.indexOf(retry);
      if (at >= 0) this.waiters.splice(at, 1);
    };
  }

  private wake(): void {
    for (;;) {
      const first = this.waiters[0];
      if (first === undefined || !first()) return;
      // it may have cancelled itself already: never drop the one behind it
      if (this.waiters[0] === first) this.waiters.shift();
    }
  }
}

export function overLimitMessage(limit: number): string {
  return `Server is over its limit of ${limit} bytes of requests in flight (--max-inflight-bytes); retry later`;
}

/**
 * One request's charge, and what the handler gets from `hold(request)` (the Held interface). A class with
 * methods, not a literal with closures: one is made per request on the hot path.
 */
export class Charge implements Held {
  /** the handler has taken over the release (it releases when the scheduler answered) */
  owned = false;
  released = false;
  /** fires when the connection closes before the response was sent (the client went away) */
  readonly gone = new ClientGone();

  constructor(
    private readonly budget: InflightBytes,
    public bytes: number,
  ) {}

  get limit(): number {
    return this.budget.limit;
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    this.budget.give(this.bytes);
  }

  grow(bytes: number): boolean {
    if (this.released || !this.budget.tryTake(bytes)) return false;
    this.bytes += bytes;
    return true;
  }
}

/**
 * A charge for a request that arrives whole, not over HTTP (a gRPC message: grpc-js has read and decoded
 * it before the handler runs): `bytes` taken at once, or undefined (nothing taken) past the limit. The
 * caller refuses the request then (UNAVAILABLE, as HTTP's 503) and releases the charge once answered.
 */
export function admit(budget: InflightBytes, bytes: number): Held | undefined {
  return budget.tryTake(bytes) ? new Charge(budget, bytes) : undefined;
}

/** What the handler gets from `hold(request)`. */
export interface Held {
  /** gives the request's bytes back: call once the scheduler has answered */
  release(): void;
  /** fires if the client goes away before its answer is sent */
  gone: CancelSignal;
  /**
   * Charges `bytes` more (tensors the request names but does not carry: a shared-memory input read into
   * the server); false (nothing taken) when that would pass the limit.
   */
  grow(bytes: number): boolean;
  /** the total it is a share of (for the refusal's message) */
  readonly limit: number;
  /** what it holds now */
  readonly bytes: number;
}
