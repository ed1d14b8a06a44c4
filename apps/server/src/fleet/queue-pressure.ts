/**
 * The autoscaling signal, declared once: mean time a request waits in the scheduler's queue, per model,
 * over a window. It is what an operator means by "queue pressure": it rises before latency budgets break
 * and before clients see refusals, whereas throughput stays flat once a replica saturates.
 *
 * Built from Triton's own counters (`nv_inference_queue_duration_us` / `nv_inference_request_success`),
 * so the same query works against Triton. Used by the local fleet's Prometheus recording rule, the
 * prometheus-adapter rule behind the Kubernetes HPA and the Grafana dashboard; tests evaluate it on a
 * real Prometheus.
 */

/** Name the adapter exposes to the HPA (custom.metrics.k8s.io, per pod). */
export const QUEUE_PRESSURE_METRIC = 'inferscope_queue_time_per_request_us';

/**
 * PromQL for the mean queue time per successful request over `window` (e.g. '1m'), summed over versions.
 * `matchers` are extra label matchers without braces (prometheus-adapter's `<<.LabelMatchers>>`).
 * No traffic gives no sample (0/0), which an HPA reads as "no reason to scale up".
 */
export function queuePressureQuery(window: string, matchers = '', by = 'model'): string {
  const sel = (name: string) => `${name}{${matchers}}`;
  return (
    `sum by (${by}) (rate(${sel('nv_inference_queue_duration_us')}[${window}]))` +
    ` / sum by (${by}) (rate(${sel('nv_inference_request_success')}[${window}]))`
  );
}
