/**
 * Measures this host's main-thread stalls for the simulator's StallSchedule: an otherwise idle event loop
 * turns as fast as it can (setImmediate) for `ms`; every turn that takes longer than STALL_THRESHOLD_US is a
 * stall (the thread did not run: other tenants of the VM, the kernel). Returns how often they start and
 * how long they last.
 *
 * The probe's own garbage collections are not the host's: turning the loop as fast as it can allocates,
 * and on this VM its young generation fills 45-95 times a second, 0.2-1.3 ms a collection, which was
 * nearly every "stall" the probe saw (their count matched the collections' one for one). The server's
 * collections are modelled on their own, per request (the gc mechanism, gc-probe.ts), so here the time a
 * collection (PerformanceObserver 'gc' entries) covers is taken out of a turn before it is judged.
 */
import { PerformanceObserver } from 'node:perf_hooks';
import { quantilesOf, STALL_THRESHOLD_US, type StallProfile } from '@inferscope/core/sim/index.ts';

/** a stretch of time, ms (performance.now()) */
export interface Span { start: number; end: number }

/**
 * The host's stalls among slow loop turns, µs: each turn less the time collections covered in it, kept
 * when what is left is still over STALL_THRESHOLD_US.
 */
export function stallsBeyondCollections(turns: readonly Span[], gcs: readonly Span[]): number[] {
  const covered = (t: Span) => gcs.reduce((s, g) => s + Math.max(0, Math.min(t.end, g.end) - Math.max(t.start, g.start)), 0);
  return turns.map((t) => (t.end - t.start - covered(t)) * 1000).filter((us) => us > STALL_THRESHOLD_US);
}

export async function measureStallProfile(ms = 1000): Promise<StallProfile> {
  const gcs: Span[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) gcs.push({ start: e.startTime, end: e.startTime + e.duration });
  });
  observer.observe({ entryTypes: ['gc'] });
  const turns: Span[] = [];
  const start = performance.now();
  const elapsed = await new Promise<number>((resolve) => {
    let last = start;
    const turn = () => {
      const now = performance.now();
      if ((now - last) * 1000 > STALL_THRESHOLD_US) turns.push({ start: last, end: now });
      last = now;
      if (now - start < ms) setImmediate(turn);
      else resolve(now - start);
    };
    setImmediate(turn);
  });
  // the observer hears of a collection after it ended, in a later task
  await new Promise((r) => setTimeout(r, 20));
  observer.disconnect();
  const stalls = stallsBeyondCollections(turns, gcs);
  return { rate_per_s: Math.round((stalls.length / (elapsed / 1000)) * 10) / 10, duration_us: stalls.length ? quantilesOf(stalls, 0) : { '0': 0, '1': 0 } };
}
