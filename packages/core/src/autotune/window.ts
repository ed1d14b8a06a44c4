/**
 * The autotuner's input: one window's statistics of one model, gathered from the event stream (so the
 * simulator and the server measure the same way). The server closes a window every second with its
 * per-second statistics; the simulator every simulated second.
 */
import type { SchedulerEvent } from '../events';
import { EventFold } from '../stats/event-fold';
import type { LogHistogram } from '../stats/histogram';

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
  /** the window's answers (the tuner pools a few windows' for a p99 worth acting on, measure.ts) */
  latency?: LogHistogram;
}

export class WindowCollector {
  private start: number;
  private fold: EventFold;

  /**
   * `model`: only this model's events count (the bus may carry several). `targetUs`: count the answers
   * slower than it (the tuner's target; a count adds up over windows where a p99 does not). `version`:
   * only that version's events (absent: every version's).
   */
  constructor(private readonly model: string, startUs: number, public targetUs = Infinity, private readonly version?: string) {
    this.start = startUs;
    this.fold = this.freshFold();
  }

  private freshFold(): EventFold {
    return new EventFold({ models: new Set([this.model]), version: this.version });
  }

  add(e: SchedulerEvent): void {
    this.fold.add(e);
  }

  /** Closes the window at `nowUs` and starts the next one. */
  take(nowUs: number): AutotuneWindow {
    const f = this.fold;
    const w: AutotuneWindow = {
      duration_us: Math.max(1, nowUs - this.start),
      arrivals: f.arrivals,
      completed: f.completed,
      p99_us: f.latency.percentile(0.99),
      over_target: f.latency.countAbove(this.targetUs),
      batches: f.batches,
      batch_samples: f.batchSamples,
      busy_us: f.busyUs,
      compute_by_size: f.bySize,
      // the fold is replaced below, so its histogram is the window's alone
      latency: f.latency,
    };
    this.start = nowUs;
    this.fold = this.freshFold();
    return w;
  }
}
