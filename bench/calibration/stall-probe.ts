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
 * collection covers is taken out of a turn before it is judged.
 */
import { quantilesOf, STALL_THRESHOLD_US, type StallProfile } from '@inferscope/core/sim';
import { withCollections, type Span } from './gc-probe';

/**
 * The host's stalls among slow loop turns, µs: each turn less the time collections covered in it, kept
 * when what is left is still over STALL_THRESHOLD_US.
 */
export function stallsBeyondCollections(turns: readonly Span[], gcs: readonly Span[]): number[] {
  const covered = (t: Span) => gcs.reduce((s, g) => s + Math.max(0, Math.min(t.end, g.end) - Math.max(t.start, g.start)), 0);
  return turns.map((t) => (t.end - t.start - covered(t)) * 1000).filter((us) => us > STALL_THRESHOLD_US);
}

export async function measureStallProfile(ms = 1000): Promise<StallProfile> {
  const turns: Span[] = [];
  const { result: elapsed, collections } = await withCollections(() => new Promise<number>((resolve) => {
    const start = performance.now();
    let last = start;
    const turn = () => {
      const now = performance.now();
      if ((now - last) * 1000 > STALL_THRESHOLD_US) turns.push({ start: last, end: now });
      last = now;
      if (now - start < ms) setImmediate(turn);
      else resolve(now - start);
    };
    setImmediate(turn);
  }));
  const stalls = stallsBeyondCollections(turns, collections);
  return { rate_per_s: Math.round((stalls.length / (elapsed / 1000)) * 10) / 10, duration_us: stalls.length ? quantilesOf(stalls, 0) : { '0': 0, '1': 0 } };
}
