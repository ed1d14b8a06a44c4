/**
 * Measures this host's main-thread stalls for the simulator's StallSchedule: an otherwise idle event loop
 * turns as fast as it can (setImmediate) for `ms`; every turn that takes longer than STALL_THRESHOLD_US is a
 * stall (the thread did not run: other tenants of the VM, a garbage collection). Returns how often they
 * start and how long they last.
 */
import { quantilesOf, STALL_THRESHOLD_US, type StallProfile } from '@inferscope/core/sim/index.ts';

export function measureStallProfile(ms = 1000): Promise<StallProfile> {
  return new Promise((resolve) => {
    const stalls: number[] = [];
    const start = performance.now();
    let last = start;
    const turn = () => {
      const now = performance.now();
      const gapUs = (now - last) * 1000;
      if (gapUs > STALL_THRESHOLD_US) stalls.push(gapUs);
      last = now;
      if (now - start < ms) setImmediate(turn);
      else resolve({ rate_per_s: Math.round((stalls.length / ((now - start) / 1000)) * 10) / 10, duration_us: stalls.length ? quantilesOf(stalls, 0) : { '0': 0, '1': 0 } });
    };
    setImmediate(turn);
  });
}
