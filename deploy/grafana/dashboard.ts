/**
 * A Grafana dashboard for InferScope's Prometheus metrics (Triton's names, so it reads Triton too):
 * throughput, queue pressure (the autoscaling signal), queue vs compute per request, average batch size,
 * pending requests, failures by reason, memory and CPU. Printed to JSON by `npm run deploy:generate`.
 */
import { QUEUE_PRESSURE_METRIC, queuePressureQuery } from '../../apps/server/src/fleet/queue-pressure.ts';

interface Panel { title: string; unit: string; exprs: Array<[legend: string, expr: string]> }

const W = '$__rate_interval';
const rate = (m: string, by = 'model') => `sum by (${by}) (rate(${m}[${W}]))`;

export const PANELS: Panel[] = [
  { title: 'Inferences per second', unit: 'reqps', exprs: [['{{model}}', rate('nv_inference_count')]] },
  { title: `Queue pressure (${QUEUE_PRESSURE_METRIC}, HPA signal)`, unit: 'µs', exprs: [['{{model}}', queuePressureQuery(W)]] },
  {
    title: 'Queue vs compute per request', unit: 'µs',
    exprs: [
      ['queue {{model}}', queuePressureQuery(W)],
      ['compute {{model}}', `${rate('nv_inference_compute_infer_duration_us')} / ${rate('nv_inference_request_success')}`],
    ],
  },
  { title: 'Average batch size', unit: 'short', exprs: [['{{model}}', `${rate('nv_inference_count')} / ${rate('nv_inference_exec_count')}`]] },
  { title: 'Pending requests', unit: 'short', exprs: [['{{model}}', 'sum by (model) (nv_inference_pending_request_count)']] },
  { title: 'Failures by reason', unit: 'reqps', exprs: [['{{model}} {{reason}}', rate('nv_inference_request_failure', 'model, reason')]] },
  { title: 'Memory used by instances', unit: 'bytes', exprs: [['{{device}}', 'sum by (device) (inferscope_memory_used_bytes)']] },
  { title: 'CPU utilisation', unit: 'percentunit', exprs: [['{{instance}}', 'nv_cpu_utilization']] },
];

export function renderDashboard(): string {
  const panels = PANELS.map((p, i) => ({
    id: i + 1,
    type: 'timeseries',
    title: p.title,
    datasource: { type: 'prometheus', uid: '${datasource}' },
    gridPos: { h: 8, w: 12, x: (i % 2) * 12, y: Math.floor(i / 2) * 8 },
    fieldConfig: { defaults: { unit: p.unit }, overrides: [] },
    targets: p.exprs.map(([legend, expr], j) => ({ refId: String.fromCharCode(65 + j), expr, legendFormat: legend })),
  }));
  const dashboard = {
    title: 'InferScope',
    uid: 'inferscope',
    schemaVersion: 39,
    time: { from: 'now-30m', to: 'now' },
    refresh: '5s',
    templating: { list: [{ name: 'datasource', type: 'datasource', query: 'prometheus' }] },
    panels,
  };
  return JSON.stringify(dashboard, null, 2) + '\n';
}
