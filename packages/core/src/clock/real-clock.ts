import type { Clock, TimerHandle } from './clock';

/**
 * setTimeout has whole-millisecond granularity, so it covers waits of at least this long (in whole ms);
 * shorter remainders are checked on every event-loop turn.
 */
const COARSE_MARGIN_US = 1000;

interface RealTimer {
  atUs: number;
  fn: () => void;
  cancelled: boolean;
  timeout: ReturnType<typeof setTimeout> | undefined;
}

type Yield = (cb: () => void) => void;

/**
 * The cheapest "run this after pending I/O, without a minimum delay" the platform has, from globalThis
 * only (core imports no node:* module): setImmediate in Node; in browsers a MessageChannel message
 * (setTimeout(0) is clamped to 4 ms there once nested).
 */
function makeYield(): Yield {
  const g = globalThis as { setImmediate?: (cb: () => void) => unknown };
  if (typeof g.setImmediate === 'function') {
    const setImmediate = g.setImmediate;
    return (cb) => void setImmediate(cb);
  }
  if (typeof MessageChannel === 'function') {
    const waiting: (() => void)[] = [];
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      const cb = waiting.shift();
      cb?.();
    };
    return (cb) => {
      waiting.push(cb);
      channel.port2.postMessage(null);
    };
  }
  return (cb) => void globalThis.setTimeout(cb, 0);
}

let yieldTurn: Yield | undefined;

/**
 * Wall-clock time from `performance.now()` and timers, all present in Node and browsers, so core stays free
 * of node:* imports. performance.now() is monotonic (immune to NTP jumps), which the batch delay needs.
 *
 * Sub-millisecond deadlines: a max_queue_delay of 300 µs must not wait a whole millisecond (the
 * granularity of setTimeout). The bulk of a wait sleeps in setTimeout; the last millisecond or less is
 * re-checked once per event-loop turn (setImmediate), which keeps serving I/O in between. That last
 * stretch keeps the thread awake (a yield loop, not a sleep), so it is bounded to under a millisecond per
 * timer (about half a millisecond on average for longer waits); a timer is never fired before its time.
 */
export class RealClock implements Clock {
  now(): number {
    return globalThis.performance.now() * 1000;
  }

  setTimer(atUs: number, fn: () => void): TimerHandle {
    const timer: RealTimer = { atUs, fn, cancelled: false, timeout: undefined };
    this.schedule(timer);
    return timer;
  }

  clearTimer(handle: TimerHandle): void {
    const timer = handle as RealTimer;
    timer.cancelled = true;
    if (timer.timeout !== undefined) globalThis.clearTimeout(timer.timeout);
    timer.timeout = undefined;
  }

  private schedule(timer: RealTimer): void {
    const remaining = timer.atUs - this.now();
    if (remaining >= COARSE_MARGIN_US) {
      // Sleep the whole milliseconds: libuv's timer clock counts whole ms, so this wakes up to ~1 ms before
      // the deadline (or a little after it), and only what is left is checked turn by turn.
      const ms = Math.floor(remaining / 1000);
      timer.timeout = globalThis.setTimeout(() => this.check(timer), ms);
      return;
    }
    (yieldTurn ??= makeYield())(() => this.check(timer));
  }

  private check(timer: RealTimer): void {
    timer.timeout = undefined;
    if (timer.cancelled) return;
    if (this.now() >= timer.atUs) {
      timer.cancelled = true; // fired: a later clearTimer is a no-op
      timer.fn();
      return;
    }
    this.schedule(timer);
  }
}
