/**
 * Triton's per-model inference metrics (names and labels as Triton's /metrics), folded from the EventBus.
 * Counters are cumulative; durations are microseconds like Triton's `_duration_us` counters.
 * Failure reasons follow Triton: REJECTED (timeout), CANCELED, BACKEND (execution failed), OTHER (drained
 * by an unload). Only requests that were queued count: a request refused at the door (invalid, queue full)
 * never reached the model, and Triton reports no metric for it. Series belong to a loaded model version:
 * they go when it unloads and restart from zero when it loads again (as Triton's per-model reporter).
 * nv_model_load_duration_secs: from the version's LOADING to its READY event.
 */
import { FAILURE_REASONS, computeSplit, failureReason, type EventBus, type FailureReason, type SchedulerEvent } from '@inferscope/core';
import type { MetricFamily } from './exposition';
import { PerVersion } from '../stats/per-version';

interface Counters {
  model: string;
  version: string;
  success: number;
  failure: Record<FailureReason, number>;
  inferences: number;
  executions: number;
  requestUs: number;
  queueUs: number;
  computeInputUs: number;
  computeInferUs: number;
  computeOutputUs: number;
  /** requests queued and not yet taken into a batch (Triton's pending = awaiting execution) */
  pending: number;
  /** scheduler-clock µs of the LOADING event, until READY */
  loadingSinceUs?: number;
  loadSecs?: number;
}

/** One mapping for the metrics and the dashboard's failure panel: core's failureReason. */
export { failureReason };
const REASONS = FAILURE_REASONS;

export class InferenceMetrics {
  private readonly byModel = new PerVersion<Counters>((model, version) => ({
    model, version, success: 0, failure: { REJECTED: 0, CANCELED: 0, BACKEND: 0, OTHER: 0 },
    inferences: 0, executions: 0, requestUs: 0, queueUs: 0, computeInputUs: 0, computeInferUs: 0,
    computeOutputUs: 0, pending: 0,
  }));
  private readonly off: () => void;

  constructor(bus: EventBus, private readonly models?: () => Array<{ name: string; version: string }>) {
    this.off = bus.on((e) => this.add(e));
  }

  close(): void {
    this.off();
  }

  private counters(model: string, version: string): Counters {
    return this.byModel.get(model, version);
  }

  add(e: SchedulerEvent): void {
    switch (e.type) {
      case 'request.queued':
        this.counters(e.model, e.version).pending++;
        break;
      case 'batch.formed': {
        const c = this.counters(e.model, e.version);
        c.pending -= e.request_ids.length;
        break;
      }
      case 'request.rejected': {
        if (e.queued_us === undefined) break; // refused at the door: not a failure in Triton's metrics
        const c = this.counters(e.model, e.version);
        c.pending--; // it was waiting in the queue (refused later, e.g. timeout)
        c.failure[failureReason(e.reason)]++;
        break;
      }
      case 'model.state':
        if (e.state === 'LOADING') {
          this.byModel.delete(e.model, e.version);
          this.counters(e.model, e.version).loadingSinceUs = e.t;
        } else if (e.state === 'READY') {
          const c = this.counters(e.model, e.version);
          if (c.loadingSinceUs !== undefined) c.loadSecs = Math.max(0, e.t - c.loadingSinceUs) / 1e6;
          c.loadingSinceUs = undefined;
        } else if (e.state === 'UNAVAILABLE') {
          this.byModel.delete(e.model, e.version);
        }
        break;
      case 'request.completed': {
        const c = this.counters(e.model, e.version); // it left `pending` when its batch formed
        if (e.steps !== undefined) {
          // an ensemble's own request forms no batch: it leaves `pending` now, one execution (as Triton counts)
          c.pending--;
          if (e.ok) c.executions++;
        }
        if (e.ok) {
          c.success++;
          c.inferences += e.batch_size;
          // whole microseconds, as Triton's counters
          c.requestUs += Math.round(e.total_us);
          c.queueUs += Math.round(e.queue_us);
          const split = computeSplit(e);
          c.computeInputUs += Math.round(split.inputUs);
          c.computeInferUs += Math.round(split.inferUs);
          c.computeOutputUs += Math.round(split.outputUs);
        } else {
          c.failure.BACKEND++;
        }
        break;
      }
      case 'batch.completed':
        if (e.ok) this.counters(e.model, e.version).executions++;
        break;
      default:
        break;
    }
  }

  families(): MetricFamily[] {
    const served = this.models?.();
    for (const m of served ?? []) if (m.version !== '') this.counters(m.name, m.version);
    // With a model list, only its versions have series (a version still loading has none yet).
    const listed = served ? new Set(served.map((m) => PerVersion.key(m.name, m.version))) : undefined;
    const rows = [...this.byModel.values()].filter((c) => !listed || listed.has(PerVersion.key(c.model, c.version))).sort((a, b) =>
      a.model === b.model ? Number(a.version) - Number(b.version) : a.model < b.model ? -1 : 1,
    );
    const fam = (name: string, help: string, type: 'counter' | 'gauge', pick: (c: Counters) => number): MetricFamily => ({
      name,
      help,
      type,
      samples: rows.map((c) => ({ labels: { model: c.model, version: c.version }, value: pick(c) })),
    });
    return [
      fam('nv_inference_request_success', 'Number of successful inference requests, all batch sizes', 'counter', (c) => c.success),
      {
        name: 'nv_inference_request_failure',
        help: 'Number of failed inference requests, all batch sizes',
        type: 'counter',
        samples: rows.flatMap((c) =>
          REASONS.map((r) => ({ labels: { model: c.model, reason: r, version: c.version }, value: c.failure[r] })),
        ),
      },
      fam('nv_inference_count', 'Number of inferences performed (each sample of a batched request counts)', 'counter', (c) => c.inferences),
      fam('nv_inference_exec_count', 'Number of model executions performed (batches)', 'counter', (c) => c.executions),
      fam('nv_inference_request_duration_us', 'Cumulative inference request duration in microseconds', 'counter', (c) => c.requestUs),
      fam('nv_inference_queue_duration_us', 'Cumulative inference queuing duration in microseconds', 'counter', (c) => c.queueUs),
      fam('nv_inference_compute_input_duration_us', 'Cumulative compute input duration in microseconds', 'counter', (c) => c.computeInputUs),
      fam('nv_inference_compute_infer_duration_us', 'Cumulative compute inference duration in microseconds', 'counter', (c) => c.computeInferUs),
      fam('nv_inference_compute_output_duration_us', 'Cumulative compute output duration in microseconds', 'counter', (c) => c.computeOutputUs),
      {
        name: 'nv_model_load_duration_secs',
        help: 'Model load time in seconds',
        type: 'gauge',
        samples: rows.filter((c) => c.loadSecs !== undefined).map((c) => ({ labels: { model: c.model, version: c.version }, value: c.loadSecs! })),
      },
      fam('nv_inference_pending_request_count', 'Instantaneous number of pending requests awaiting execution per-model', 'gauge', (c) => c.pending),
    ];
  }
}
