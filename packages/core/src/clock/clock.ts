/**
 * Time for the scheduler. Everything that waits (batch delay, queue timeouts, simulated compute) goes through
 * a Clock so tests and the simulator can replace wall time with a VirtualClock and never sleep.
 * All times are microseconds on one monotonic timeline.
 */
export type TimerHandle = { readonly __timer: true } | number | object;

export interface Clock {
  /** microseconds, monotonic */
  now(): number;
  /** run `fn` once the clock reaches `atUs` (immediately-ish when atUs is already past) */
  setTimer(atUs: number, fn: () => void): TimerHandle;
  clearTimer(handle: TimerHandle): void;
}
