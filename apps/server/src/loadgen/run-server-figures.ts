/**
 * The server's side of one load run: folds the bus's `request.completed` events of the run's models from
 * the run's start until it is frozen (the run's last answer), as perf_analyzer reports a "Server:" block
 * from the statistics of its measurement window. Latency percentiles come from a log histogram (fixed
 * memory, within 1%), so a run of a million requests costs no more than one of ten.
 */
import type { EventBus, LoadServerFigures, SchedulerEvent } from '@inferscope/core';
import { LogHistogram } from '@inferscope/core/stats';

export class RunServerFigures {
  private readonly latency = new LogHistogram();
  private failed = 0;
  /** refused before they ran (queue full, timeout, invalid): no queue or compute time of their own */
  private rejected = 0;
  private queueSum = 0;
  private computeSum = 0;
  private batches = 0;
  private batchedRequests = 0;
  private unsubscribe: (() => void) | undefined;
  private frozen: LoadServerFigures | undefined;

  constructor(bus: EventBus, private readonly models: ReadonlySet<string>) {
    this.unsubscribe = bus.on((e) => this.fold(e));
  }

  private fold(e: SchedulerEvent): void {
    if (e.type === 'memory' || !this.models.has(e.model)) return;
    if (e.type === 'batch.completed') {
      this.batches++;
      this.batchedRequests += e.size;
      return;
    }
    if (e.type === 'request.rejected') {
      this.failed++;
      this.rejected++;
      return;
    }
    if (e.type !== 'request.completed') return;
    if (e.ok) this.latency.add(e.total_us);
    else this.failed++;
    this.queueSum += e.queue_us;
    this.computeSum += e.compute_us;
  }

  /** The figures so far (while the run goes on) or as frozen at its end. */
  figures(): LoadServerFigures {
    if (this.frozen) return this.frozen;
    const requests = this.latency.count + this.failed;
    const timed = requests - this.rejected;
    return {
      requests,
      failed: this.failed,
      latency_us: { p50: Math.round(this.latency.percentile(0.5)), p99: Math.round(this.latency.percentile(0.99)) },
      queue_us: timed > 0 ? Math.round(this.queueSum / timed) : 0,
      compute_us: timed > 0 ? Math.round(this.computeSum / timed) : 0,
      batches: this.batches,
      avg_batch_size: this.batches > 0 ? Math.round((this.batchedRequests / this.batches) * 100) / 100 : 0,
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
