import type { Clock, TimerHandle } from './clock';

/**
 * Wall-clock time from `performance.now()` and `setTimeout`, both present in Node and browsers, so core
 * stays free of node:* imports. performance.now() is monotonic (immune to NTP jumps), which the batch
 * delay needs.
 */
export class RealClock implements Clock {
  now(): number {
    return globalThis.performance.now() * 1000;
  }

  setTimer(atUs: number, fn: () => void): TimerHandle {
    // Timers have millisecond granularity (Node and browsers clamp to >= 1 ms). Rounding up means a timer
    // never fires before its time, which would only make the scheduler re-arm for the remainder; the cost is
    // that a max_queue_delay below 1 ms waits about 1 ms on the real clock (exact on the virtual one).
    const delayMs = Math.max(0, Math.ceil((atUs - this.now()) / 1000));
    return globalThis.setTimeout(fn, delayMs) as unknown as TimerHandle;
  }

  clearTimer(handle: TimerHandle): void {
    globalThis.clearTimeout(handle as unknown as ReturnType<typeof setTimeout>);
  }
}
