/**
 * The server's garbage collections under a given way of driving it, for the simulator's GcPauses: `drive`
 * sends some requests (and resolves with how many), while perf_hooks reports every collection of this
 * thread; returns requests per collection and the pause lengths. How often V8 collects depends on what is
 * allocated per request, which depends on how requests come: the in-process load generator's open loop
 * turns RealClock's sub-millisecond waits (setImmediate loops that allocate every turn) and a listener
 * that keeps the events keeps them alive, so the probe must drive the server as the run it stands for does.
 */
import { PerformanceObserver, performance } from 'node:perf_hooks';
import { quantilesOf } from '@inferscope/core/sim';
import type { GcProfile } from '../sim-host/schemas';

/** a stretch of time, ms (performance.now()) */
export interface Span { start: number; end: number }

/** What `run` resolves with, and the collections of this thread that began while it ran. */
export async function withCollections<T>(run: () => Promise<T>): Promise<{ result: T; collections: Span[] }> {
  const gcs: Span[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) gcs.push({ start: e.startTime, end: e.startTime + e.duration });
  });
  observer.observe({ entryTypes: ['gc'] });
  const from = performance.now();
  const result = await run();
  const to = performance.now();
  await new Promise((r) => setImmediate(r)); // the observer's entries arrive on a later turn
  observer.disconnect();
  return { result, collections: gcs.filter((g) => g.start >= from && g.start <= to) };
}

export async function measureGcProfile(drive: () => Promise<number>): Promise<GcProfile | undefined> {
  const { result: requests, collections } = await withCollections(drive);
  return gcProfileOf(requests, collections);
}

/** The profile of `collections` met while `requests` were served (undefined with none of either). */
export function gcProfileOf(requests: number, collections: readonly Span[]): GcProfile | undefined {
  const pauses = collections.map((g) => (g.end - g.start) * 1000);
  if (pauses.length === 0 || requests <= 0) return undefined;
  return { requests_per_gc: Math.max(1, Math.round((requests / pauses.length) * 10) / 10), pause_us: quantilesOf(pauses, 0) };
}
