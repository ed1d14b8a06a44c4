/**
 * The server's garbage collections under a given way of driving it, for the simulator's GcPauses: `drive`
 * sends some requests (and resolves with how many), while perf_hooks reports every collection of this
 * thread; returns requests per collection and the pause lengths. How often V8 collects depends on what is
 * allocated per request, which depends on how requests come: the in-process load generator's open loop
 * turns RealClock's sub-millisecond waits (setImmediate loops that allocate every turn) and a listener
 * that keeps the events keeps them alive, so the probe must drive the server as the run it stands for does.
 */
import { PerformanceObserver, performance, type PerformanceEntry } from 'node:perf_hooks';
import { quantilesOf, type GcProfile } from '@inferscope/core/sim/index.ts';

export async function measureGcProfile(drive: () => Promise<number>): Promise<GcProfile | undefined> {
  const gcs: PerformanceEntry[] = [];
  const observer = new PerformanceObserver((list) => gcs.push(...list.getEntries()));
  observer.observe({ entryTypes: ['gc'] });
  const from = performance.now();
  const requests = await drive();
  const to = performance.now();
  await new Promise((r) => setImmediate(r)); // the observer's entries arrive on a later turn
  observer.disconnect();
  const pauses = gcs.filter((g) => g.startTime >= from && g.startTime <= to).map((g) => g.duration * 1000);
  if (pauses.length === 0 || requests <= 0) return undefined;
  return { requests_per_gc: Math.max(1, Math.round((requests / pauses.length) * 10) / 10), pause_us: quantilesOf(pauses, 0) };
}
