import type { Clock, TimerHandle } from './clock';
import { timerDelayMs } from './timer-delay';

/** Waits at least this long sleep in setTimeout; shorter ones are checked on every event-loop turn. */
const COARSE_MARGIN_US = 1000;

interface RealTimer {
  atUs: number;
  fn: () => void;
  cancelled: boolean;
  timeout: ReturnType<typeof setTimeout> | undefined;
}

type Yield = (cb: () => void) => void;

/**
 * Runs `fn` once the time `atUs` (this clock's microseconds) has come, without keeping the calling thread
 * awake until then; it may be called a little late, never on its own before `atUs` (the clock re-checks).
 * The server passes one that sleeps in a helper thread (apps/server/src/timing/fine-wait.ts); without
 * one, waits under a millisecond are re-checked on every event-loop turn.
 */
export type FineWait = (atUs: number, fn: () => void) => void;

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
  // The browser's MessageChannel (ports with onmessage); Node's has another shape but is never reached
  // here, since Node has setImmediate.
  const { MessageChannel } = globalThis as unknown as {
    MessageChannel?: new () => { port1: { onmessage: (() => void) | null }; port2: { postMessage(m: null): void } };
  };
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
 * granularity of setTimeout), so waits shorter than a millisecond are re-checked once per event-loop turn
 * (setImmediate), which keeps serving I/O in between but keeps the thread awake: a yield loop, not a sleep.
 * Waits of a millisecond or more sleep in setTimeout, rounded UP to whole milliseconds, and never spin:
 * on a 2-core host a spinning main thread would take CPU from the model's instance threads, and being up
 * to ~1 ms late on a wait of several milliseconds matters less than that. A libuv wake-up comes up to a
 * millisecond early (its loop time is whole milliseconds, taken when the loop turn began), and the rest is
 * finished turn by turn, or, given a `FineWait`, asleep: measured here, the turn-by-turn rest of a 2 ms
 * batch delay cost the main thread ~0.9 ms of CPU per timer at 50 timers/s. A timer never fires before
 * its time.
 */
export class RealClock implements Clock {
  constructor(private readonly fineWait?: FineWait) {}

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
      timer.timeout = globalThis.setTimeout(() => this.check(timer), timerDelayMs(Math.ceil(remaining / 1000)));
      return;
    }
    // A deadline already reached (the scheduler's "re-decide once this turn's arrivals are in") needs one
    // turn, not a sleep: through the fine-wait thread it would cost a thread wake-up and a message back,
    // per batch under load.
    if (this.fineWait && remaining > 0) this.fineWait(timer.atUs, () => this.check(timer));
    else (yieldTurn ??= makeYield())(() => this.check(timer));
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
