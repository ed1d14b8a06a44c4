/**
 * The one fold of a model's scheduler events over a stretch of time: what a load run's "Server:" block,
 * an A/B round and the autotuner's window each read, so the three count the same way (a request that
 * failed, a batch that errored, a refusal before queueing: request-outcome.ts decides). Fixed memory: latencies go to a log histogram
 * (percentiles within 1%), batch sizes to a count per size.
 */
import type { SchedulerEvent } from '../events';
import { LogHistogram } from './histogram';
import { failureOf, isCacheHit } from './request-outcome';

/** Which events count: one model (or a set of them), optionally one version. */
export interface FoldFilter {
  models: ReadonlySet<string>;
  version?: string;
}

export class EventFold {
  /** requests that arrived (request.queued) */
  arrivals = 0;
  /** end-to-end latency of the requests answered successfully, µs */
  readonly latency = new LogHistogram();
  /** failed requests, as nv_inference_request_failure counts them (request-outcome.ts): answered with an error, or refused after queueing */
  failed = 0;
  /** requests the scheduler refused, before queueing (queue full, invalid: not failures) or after (timeout: also in `failed`) */
  rejected = 0;
  /** requests that ran (answered ok or with an error after running): the ones with queue and compute times */
  timed = 0;
  /** Σ queue and compute time of the requests that ran (ok or not), µs */
  queueSumUs = 0;
  computeSumUs = 0;
  /** batches that completed without error, the samples they carried and the instance time they took */
  batches = 0;
  batchSamples = 0;
  busyUs = 0;
  /** per batch size: [batches, Σ compute µs] of the batches that completed without error */
  bySize: Record<number, [number, number]> = {};

  constructor(private readonly filter: FoldFilter) {}

  add(e: SchedulerEvent): void {
    if (e.type === 'memory' || !this.filter.models.has(e.model)) return;
    if (this.filter.version !== undefined && e.version !== this.filter.version) return;
    switch (e.type) {
      case 'request.queued':
        this.arrivals++;
        return;
      case 'request.rejected':
        this.rejected++;
        if (failureOf(e) !== undefined) this.failed++;
        return;
      case 'request.completed':
        this.timed++;
        if (failureOf(e) === undefined) this.latency.add(e.total_us);
        else this.failed++;
        this.queueSumUs += e.queue_us;
        this.computeSumUs += e.compute_us;
        return;
      case 'request.cache':
        // a hit arrived and was answered before any queue (request-outcome.ts); a miss counts by its run
        if (!isCacheHit(e)) return;
        this.arrivals++;
        this.timed++;
        this.latency.add(e.total_us);
        this.queueSumUs += e.queue_us;
        return;
      case 'batch.completed': {
        if (!e.ok) return;
        this.batches++;
        this.batchSamples += e.size;
        this.busyUs += e.compute_us;
        const s = (this.bySize[e.size] ??= [0, 0]);
        s[0]++;
        s[1] += e.compute_us;
        return;
      }
    }
  }

  /** requests answered successfully */
  get completed(): number {
    return this.latency.count;
  }

  get avgBatchSize(): number {
    return this.batches > 0 ? this.batchSamples / this.batches : 0;
  }

  /** batches per size, as the statistics extension's batch_stats count them */
  batchHistogram(): Record<string, number> {
    return Object.fromEntries(Object.entries(this.bySize).map(([size, [n]]) => [size, n]));
  }
}
