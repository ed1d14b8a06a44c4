/**
 * The autotuner's input: one window's statistics of one model, gathered from the event stream (so the
 * simulator and the server measure the same way). The server closes a window every second with its
 * per-second statistics; the simulator every simulated second.
 */
import type { SchedulerEvent } from '../events';
import { percentile } from '../sim/summary';

export interface AutotuneWindow {
  /** length of the window, µs */
  duration_us: number;
  /** requests that arrived (queued) in the window */
  arrivals: number;
  /** requests answered successfully in the window */
  completed: number;
  /** p99 of their end-to-end latency, µs (0 when none completed) */
  p99_us: number;
  /** of them, how many took longer than the collector's target (0 without one) */
  over_target: number;
  batches: number;
  /** samples in the batches completed in the window */
  batch_samples: number;
  /** instance busy time of the batches completed in the window, µs */
  busy_us: number;
  /** measured compute per batch size in the window: size -> [batches, Σ compute µs] */
  compute_by_size: Record<number, [number, number]>;
}

export class WindowCollector {
  private start: number;
  private arrivals = 0;
  private latencies: number[] = [];
  private batches = 0;
  private samples = 0;
  private busy = 0;
  private bySize: Record<number, [number, number]> = {};

  /**
   * `model`: only this model's events count (the bus may carry several). `targetUs`: count the answers
   * slower than it (the tuner's target; a count adds up over windows where a p99 does not). `version`:
   * only that version's events (absent: every version's).
   */
  constructor(private readonly model: string, startUs: number, public targetUs = Infinity, private readonly version?: string) {
    this.start = startUs;
  }

  add(e: SchedulerEvent): void {
    if (!('model' in e) || e.model !== this.model || (this.version !== undefined && e.version !== this.version)) return;
    switch (e.type) {
      case 'request.queued':
        this.arrivals++;
        return;
      case 'request.completed':
        if (e.ok) this.latencies.push(e.total_us);
        return;
      case 'batch.completed': {
        if (!e.ok) return;
        this.batches++;
        this.samples += e.size;
        this.busy += e.compute_us;
        const s = (this.bySize[e.size] ??= [0, 0]);
        s[0]++;
        s[1] += e.compute_us;
        return;
      }
    }
  }

  /** Closes the window at `nowUs` and starts the next one. */
  take(nowUs: number): AutotuneWindow {
    const sorted = Float64Array.from(this.latencies).sort();
    const w: AutotuneWindow = {
      duration_us: Math.max(1, nowUs - this.start),
      arrivals: this.arrivals,
      completed: sorted.length,
      p99_us: percentile(sorted, 0.99),
      over_target: countAbove(sorted, this.targetUs),
      batches: this.batches,
      batch_samples: this.samples,
      busy_us: this.busy,
      compute_by_size: this.bySize,
    };
    this.start = nowUs;
    this.arrivals = 0;
    this.latencies = [];
    this.batches = 0;
    this.samples = 0;
    this.busy = 0;
    this.bySize = {};
    return w;
  }
}

/** how many of the sorted values exceed `limit` */
function countAbove(sorted: Float64Array, limit: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] <= limit) lo = mid + 1;
    else hi = mid;
  }
  return sorted.length - lo;
}
