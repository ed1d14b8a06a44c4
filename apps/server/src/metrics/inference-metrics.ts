/**
 * Triton's per-model inference metrics (names and labels as Triton's /metrics), read at scrape time from
 * the statistics collector: the very totals the statistics extension serves (Triton builds both from its
 * InferenceStatsAggregator), so a scrape and /v2/models/stats always agree. Nothing here folds events.
 *
 * Counters are cumulative; durations are the statistics' nanoseconds / 1000 (whole microseconds: the
 * collector accumulates whole µs) like Triton's `_duration_us` counters. nv_inference_request_duration_us
 * is the successful requests' duration, as Triton's. Failure reasons follow Triton: REJECTED (timeout),
 * CANCELED, BACKEND (execution failed), OTHER (drained by an unload); they sum to the statistics' fail
 * count. Series exist for the versions that have statistics (loaded ones), restart from zero on reload.
 * nv_model_load_duration_secs: from the version's LOADING to its READY event.
 */
import { FAILURE_REASONS, failureReason } from '@inferscope/core';
import type { MetricFamily } from './exposition';
import type { Duration, StatsCollector, VersionTotals } from '../stats/collector';

/** One mapping for the metrics and the dashboard's failure panel: core's failureReason. */
export { failureReason };

const us = (d: Duration): number => d.ns / 1000;

export function inferenceFamilies(stats: Pick<StatsCollector, 'totals'>): MetricFamily[] {
  const rows = stats.totals();
  const labels = (r: VersionTotals) => ({ model: r.stat.name, version: r.stat.version });
  const fam = (name: string, help: string, type: 'counter' | 'gauge', pick: (r: VersionTotals) => number): MetricFamily => ({
    name,
    help,
    type,
    samples: rows.map((r) => ({ labels: labels(r), value: pick(r) })),
  });
  return [
    fam('nv_inference_request_success', 'Number of successful inference requests, all batch sizes', 'counter', (r) => r.stat.inference_stats.success.count),
    {
      name: 'nv_inference_request_failure',
      help: 'Number of failed inference requests, all batch sizes',
      type: 'counter',
      samples: rows.flatMap((r) =>
        FAILURE_REASONS.map((reason) => ({ labels: { model: r.stat.name, reason, version: r.stat.version }, value: r.failures[reason] })),
      ),
    },
    fam('nv_inference_count', 'Number of inferences performed (each sample of a batched request counts)', 'counter', (r) => r.stat.inference_count),
    fam('nv_inference_exec_count', 'Number of model executions performed (batches)', 'counter', (r) => r.stat.execution_count),
    fam('nv_inference_request_duration_us', 'Cumulative inference request duration in microseconds', 'counter', (r) => us(r.stat.inference_stats.success)),
    fam('nv_inference_queue_duration_us', 'Cumulative inference queuing duration in microseconds', 'counter', (r) => us(r.stat.inference_stats.queue)),
    fam('nv_inference_compute_input_duration_us', 'Cumulative compute input duration in microseconds', 'counter', (r) => us(r.stat.inference_stats.compute_input)),
    fam('nv_inference_compute_infer_duration_us', 'Cumulative compute inference duration in microseconds', 'counter', (r) => us(r.stat.inference_stats.compute_infer)),
    fam('nv_inference_compute_output_duration_us', 'Cumulative compute output duration in microseconds', 'counter', (r) => us(r.stat.inference_stats.compute_output)),
    {
      name: 'nv_model_load_duration_secs',
      help: 'Model load time in seconds',
      type: 'gauge',
      samples: rows.filter((r) => r.loadSecs !== undefined).map((r) => ({ labels: labels(r), value: r.loadSecs! })),
    },
    fam('nv_inference_pending_request_count', 'Instantaneous number of pending requests awaiting execution per-model', 'gauge', (r) => r.pending),
  ];
}
