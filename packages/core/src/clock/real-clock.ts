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
    const delayMs = Math.max(0, (atUs - this.now()) / 1000);
    return globalThis.setTimeout(fn, delayMs) as unknown as TimerHandle;
  }

  clearTimer(handle: TimerHandle): void {
    globalThis.clearTimeout(handle as unknown as ReturnType<typeof setTimeout>);
  }
}
