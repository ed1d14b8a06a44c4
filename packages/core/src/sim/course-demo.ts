/**
 * The course demo: the naive batcher (naive-batcher.ts) and Triton's rule (the real ModelScheduler on a
 * VirtualClock) on the same seeded arrivals, one instance, a batch costing `processUs` whatever its size.
 * Returns each request's wait under both, and the batches each formed, for the two lanes of the lesson.
 */
import { Rng } from '../load/rng';
import { traceToScenario } from '../load/trace';
import { createSimulation } from './simulation';
import { runNaiveBatcher, type NaiveBatch, type RequestTiming } from './naive-batcher';

export interface CourseDemoOptions {
  seed: number;
  requests: number;
  /** arrival gaps are uniform in [gapMinUs, gapMaxUs] (the course: 50..150 ms) */
  gapMinUs: number;
  gapMaxUs: number;
  /** the course's max_batch (4) and Triton's max_batch_size */
  maxBatch: number;
  /** the course's process_time (200 ms) */
  processUs: number;
  /** the course's max_wait (300 ms): only used for the final flush */
  maxWaitUs: number;
  /** Triton's max_queue_delay_microseconds */
  delayUs: number;
}

export const COURSE_DEFAULTS: CourseDemoOptions = { seed: 1, requests: 10, gapMinUs: 50_000, gapMaxUs: 150_000, maxBatch: 4, processUs: 200_000, maxWaitUs: 300_000, delayUs: 100_000 };

export interface TritonBatch { start_us: number; requests: number[]; trigger: string }

export interface CourseDemoResult {
  arrivals_us: number[];
  naive: { batches: NaiveBatch[]; requests: RequestTiming[] };
  triton: { batches: TritonBatch[]; requests: RequestTiming[] };
  worst_wait_us: { naive: number; triton: number };
  mean_wait_us: { naive: number; triton: number };
}

export function courseArrivals(o: Pick<CourseDemoOptions, 'seed' | 'requests' | 'gapMinUs' | 'gapMaxUs'>): number[] {
  const rng = new Rng(o.seed);
  const out: number[] = [];
  let t = 0;
  for (let i = 0; i < o.requests; i++) {
    t += Math.round(o.gapMinUs + (o.gapMaxUs - o.gapMinUs) * rng.next());
    out.push(t);
  }
  return out;
}

function tritonRun(arrivals: readonly number[], o: CourseDemoOptions): { batches: TritonBatch[]; requests: RequestTiming[] } {
  const scenario = traceToScenario({ header: { format: 'inferscope-trace', version: 1, scenario: 'course-demo' }, arrivals: arrivals.map((t, i) => ({ t_us: t, model: 'demo', batch_size: 1, id: `${i}` })) });
  const sim = createSimulation({
    scenario, seed: o.seed, cost: { fixed_us: o.processUs, per_item_us: 0 },
    configs: { name: 'demo', max_batch_size: o.maxBatch, dynamic_batching: { max_queue_delay_microseconds: o.delayUs }, instance_group: [{ count: 1, kind: 'KIND_CPU' }] },
  });
  sim.runToEnd();
  const requests: RequestTiming[] = arrivals.map((t) => ({ arrive_us: t, start_us: NaN, done_us: NaN, wait_us: NaN }));
  const batches: TritonBatch[] = [];
  const formed = new Map<string, TritonBatch>();
  for (const e of sim.events) {
    if (e.type === 'batch.formed') {
      const b = { start_us: e.t, requests: e.request_ids.map(Number), trigger: e.trigger };
      formed.set(e.batch_id, b);
      batches.push(b);
    } else if (e.type === 'batch.started') {
      const b = formed.get(e.batch_id);
      if (b) b.start_us = e.t;
    } else if (e.type === 'request.completed') {
      const i = Number(e.request_id);
      requests[i] = { arrive_us: arrivals[i], start_us: e.t - e.compute_us, done_us: e.t, wait_us: e.queue_us };
    }
  }
  return { batches, requests };
}

export function runCourseDemo(input: Partial<CourseDemoOptions> = {}): CourseDemoResult {
  const o = { ...COURSE_DEFAULTS, ...input };
  const arrivals = courseArrivals(o);
  const naive = runNaiveBatcher(arrivals, o);
  const triton = tritonRun(arrivals, o);
  const worst = (r: RequestTiming[]) => Math.max(0, ...r.map((x) => x.wait_us));
  const mean = (r: RequestTiming[]) => (r.length ? r.reduce((n, x) => n + x.wait_us, 0) / r.length : 0);
  return {
    arrivals_us: arrivals, naive, triton,
    worst_wait_us: { naive: worst(naive.requests), triton: worst(triton.requests) },
    mean_wait_us: { naive: mean(naive.requests), triton: mean(triton.requests) },
  };
}
