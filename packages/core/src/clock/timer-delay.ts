/**
 * The longest delay a host timer holds: Node's and browsers' setTimeout keep it in a signed 32-bit count
 * of milliseconds (~24.8 days). A longer one does not wait longer: Node fires it after 1 ms (with a
 * warning each time), browsers at once. So a timeout from outside (a request's, a config parameter's,
 * a client's grpc-timeout) of weeks would fire at once, and a clock that re-checks (RealClock) would
 * wake every millisecond until then.
 */
export const LONGEST_TIMER_MS = 2 ** 31 - 1;

/** `ms` as a host timer can wait it: held at LONGEST_TIMER_MS, longer than anything here runs. */
export function timerDelayMs(ms: number): number {
  return Math.min(ms, LONGEST_TIMER_MS);
}
