/**
 * The gRPC counterpart of node's request timeout: a call whose request message stops arriving half-way
 * (or never starts) is given up after `ms` without a byte, so it holds neither its share of
 * --max-inflight-bytes (charged from the message's prefix) nor its connection for ever. A stream between
 * messages, or a call being answered, is not watched: only a message that is owed.
 *
 * One sweep for all the watched calls (a timer per call would cost a timer on every unary call); a call
 * is given up between `ms` and 1.5 x `ms` after its last byte.
 */
import { timerDelayMs } from '@inferscope/core/clock';

export interface Stallable {
  /** when its last byte arrived (performance.now(), ms) */
  lastByteMs: number;
  /** it stalled: give it up (it is no longer watched) */
  stalled(): void;
}

export class MessageStallWatch {
  private readonly watched = new Set<Stallable>();
  private sweep: NodeJS.Timeout | undefined;

  constructor(readonly ms: number) {}

  watch(call: Stallable): void {
    this.watched.add(call);
    if (this.sweep === undefined) {
      this.sweep = setInterval(() => this.check(), timerDelayMs(Math.max(1, this.ms / 2)));
      this.sweep.unref();
    }
  }

  unwatch(call: Stallable): void {
    this.watched.delete(call);
  }

  private check(): void {
    const now = performance.now();
    for (const call of this.watched) {
      if (now - call.lastByteMs < this.ms) continue;
      this.watched.delete(call);
      call.stalled();
    }
    if (this.watched.size === 0) {
      clearInterval(this.sweep);
      this.sweep = undefined;
    }
  }
}
