/**
 * The server's side of one load run: folds the bus's events of the run's models (core's EventFold) from
 * the run's start until it is frozen (the run's last answer), as perf_analyzer reports a "Server:" block
 * from the statistics of its measurement window. Fixed memory, so a run of a million requests costs no
 * more than one of ten.
 */
import type { EventBus, LoadServerFigures } from '@inferscope/core';
import { EventFold } from '@inferscope/core/stats';

export class RunServerFigures {
  private readonly fold: EventFold;
  private unsubscribe: (() => void) | undefined;
  private frozen: LoadServerFigures | undefined;

  constructor(bus: EventBus, models: ReadonlySet<string>) {
    this.fold = new EventFold({ models });
    this.unsubscribe = bus.on((e) => this.fold.add(e));
  }

  /** The figures so far (while the run goes on) or as frozen at its end. */
  figures(): LoadServerFigures {
    if (this.frozen) return this.frozen;
    const f = this.fold;
    return {
      requests: f.completed + f.failed,
      failed: f.failed,
      latency_us: { p50: Math.round(f.latency.percentile(0.5)), p99: Math.round(f.latency.percentile(0.99)) },
      queue_us: f.timed > 0 ? Math.round(f.queueSumUs / f.timed) : 0,
      compute_us: f.timed > 0 ? Math.round(f.computeSumUs / f.timed) : 0,
      batches: f.batches,
      avg_batch_size: Math.round(f.avgBatchSize * 100) / 100,
    };
  }

  /** Stops listening; later calls of figures() return these same figures. */
  freeze(): LoadServerFigures {
    if (!this.frozen) {
      this.frozen = this.figures();
      this.unsubscribe?.();
      this.unsubscribe = undefined;
    }
    return this.frozen;
  }
}
