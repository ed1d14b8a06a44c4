/**
 * The simulation's result figures, collected from the event stream as it flows (so a long run need not keep
 * every event). Percentiles are exact (nearest rank over every answered request): a simulation is finite
 * and reproducibility matters more than memory here.
 */
import type { SchedulerEvent } from '../events';
import { percentile } from '../util/percentile';
import { requestOutcome } from '../stats/request-outcome';

export interface SimSummary {
  scenario: string;
  seed: number;
  /** from t=0 to the last answer, seconds of simulated time */
  duration_s: number;
  /** samples (inferences) completed per second */
  throughput_per_s: number;
  requests_per_s: number;
  latency_us: { p50: number; p90: number; p99: number; mean: number; max: number };
  queue_us: { mean: number; p99: number };
  compute_us: { mean: number };
  /**
   * instance busy time per request answered: Σ batch compute / requests. What batching saves: a batch of 8
   * that takes 300 µs costs each of its requests 37.5 µs of an instance, not 300.
   */
  busy_us_per_request: number;
  avg_batch_size: number;
  batches: number;
  batch_size_histogram: Record<string, number>;
  triggers: Record<string, number>;
  requests: { sent: number; completed: number; rejected: number; failed: number };
  rejected_by_reason: Record<string, number>;
}

const round = (v: number, digits = 2) => {
  const k = 10 ** digits;
  return Math.round(v * k) / k;
};

/** Re-exported where the simulator's users found it; its home is util/percentile.ts. */
export { percentile };

export class SummaryCollector {
  private latencies: number[] = [];
  private queues: number[] = [];
  private computeSum = 0;
  private busySum = 0;
  private samples = 0;
  private batchSamples = 0;
  private batches = 0;
  private hist = new Map<number, number>();
  private triggers = new Map<string, number>();
  private rejected = new Map<string, number>();
  private failed = 0;
  private lastT = 0;
  sent = 0;

  add(e: SchedulerEvent): void {
    if (e.t > this.lastT) this.lastT = e.t;
    switch (e.type) {
      case 'request.completed':
        // the outcomes partition what was sent (request-outcome.ts): completed, failed after running, rejected (before or after queueing)
        if (requestOutcome(e) === 'failed_run') {
          this.failed++;
          return;
        }
        this.latencies.push(e.total_us);
        this.queues.push(e.queue_us);
        this.computeSum += e.compute_us;
        this.samples += e.batch_size;
        return;
      case 'request.cache':
        // a hit is answered at the door (a success, no compute, as Triton counts it); a miss is counted when it completes
        if (e.outcome !== 'hit') return;
        this.latencies.push(e.total_us);
        this.queues.push(e.queue_us);
        this.samples += e.batch_size;
        return;
      case 'batch.formed':
        this.batches++;
        this.batchSamples += e.size;
        this.hist.set(e.size, (this.hist.get(e.size) ?? 0) + 1);
        this.triggers.set(e.trigger, (this.triggers.get(e.trigger) ?? 0) + 1);
        return;
      case 'batch.completed':
        this.busySum += e.compute_us;
        return;
      case 'request.rejected':
        this.rejected.set(e.reason, (this.rejected.get(e.reason) ?? 0) + 1);
        return;
    }
  }

  summary(scenario: string, seed: number): SimSummary {
    const lat = Float64Array.from(this.latencies).sort();
    const q = Float64Array.from(this.queues).sort();
    const n = lat.length;
    const dur = this.lastT / 1e6;
    const sum = (a: ArrayLike<number>) => {
      let s = 0;
      for (let i = 0; i < a.length; i++) s += a[i];
      return s;
    };
    const sortedObj = (m: Map<string | number, number>) =>
      Object.fromEntries([...m.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([k, v]) => [String(k), v]));
    const rejected = [...this.rejected.values()].reduce((a, b) => a + b, 0);
    return {
      scenario,
      seed,
      duration_s: round(dur, 6),
      throughput_per_s: dur > 0 ? round(this.samples / dur) : 0,
      requests_per_s: dur > 0 ? round(n / dur) : 0,
      latency_us: { p50: percentile(lat, 0.5), p90: percentile(lat, 0.9), p99: percentile(lat, 0.99), mean: n ? round(sum(lat) / n, 1) : 0, max: n ? lat[n - 1] : 0 },
      queue_us: { mean: n ? round(sum(q) / n, 1) : 0, p99: percentile(q, 0.99) },
      compute_us: { mean: n ? round(this.computeSum / n, 1) : 0 },
      busy_us_per_request: n ? round(this.busySum / n, 1) : 0,
      avg_batch_size: this.batches ? round(this.batchSamples / this.batches, 3) : 0,
      batches: this.batches,
      batch_size_histogram: Object.fromEntries([...this.hist.entries()].sort((a, b) => a[0] - b[0]).map(([k, v]) => [String(k), v])),
      triggers: sortedObj(this.triggers),
      requests: { sent: this.sent, completed: n, rejected, failed: this.failed },
      rejected_by_reason: sortedObj(this.rejected),
    };
  }
}
