/**
 * An experiment table as a picture: which metric a table is read by, the rows as groups of bars (rows that
 * share a group stand side by side: MLP vs CNN, each with batching off and on), one scale for all bars, and
 * which row the lesson's knob is set to now. Pure (no DOM): the chart component and the unit tests share it.
 */
import type { SimSummary } from '@inferscope/core/sim';
import { formatRate, formatUs } from '../charts/format';
import { ticksInUnit } from '../charts/draw';
import { linear } from '../charts/scales';
import type { ExperimentTable } from './experiments';

export type Metric = 'throughput' | 'batch' | 'p50' | 'p99' | 'busy';
export const METRICS: readonly Metric[] = ['throughput', 'batch', 'p50', 'p99', 'busy'];

export const metricValue: Record<Metric, (s: SimSummary) => number> = {
  throughput: (s) => s.throughput_per_s,
  batch: (s) => s.avg_batch_size,
  p50: (s) => s.latency_us.p50,
  p99: (s) => s.latency_us.p99,
  busy: (s) => s.busy_us_per_request,
};
const DURATION: Record<Metric, boolean> = { throughput: false, batch: false, p50: true, p99: true, busy: true };
export const formatMetric = (m: Metric, v: number): string => (DURATION[m] ? formatUs(v) : m === 'batch' ? v.toFixed(1) : formatRate(v));
/** throughput and batch size: more is the point; latencies and instance time: less is */
export const higherIsBetter = (m: Metric): boolean => m === 'throughput' || m === 'batch';

/** The metric each table's claim is about (what the verdict compares), so the chart opens on the proof. */
const CLAIM_METRIC: Record<string, Metric> = {
  'on-off': 'throughput', delay: 'batch', overload: 'throughput', bound: 'throughput',
  'backends-light': 'busy', 'backends-heavy': 'busy', instances: 'throughput', sweep: 'p99',
};
export const claimMetric = (tableId: string): Metric => CLAIM_METRIC[tableId] ?? 'throughput';

export interface Bar { row: number; series: string; value: number; label: string; current: boolean }
export interface BarGroup { label: string; bars: Bar[] }
export interface Figure {
  groups: BarGroup[];
  /** the series names in first-seen order (one colour each); a single '' when rows are not paired */
  series: string[];
  /** the scale's end (every bar's value fits) and its ticks with their labels */
  max: number;
  ticks: { value: number; label: string }[];
}

/** `current`: the lesson knob's value now (delay µs, instance count); the row run at it is marked. */
export function buildFigure(table: ExperimentTable, metric: Metric, current?: number): Figure {
  const groups: BarGroup[] = [];
  const series: string[] = [];
  table.rows.forEach((r, row) => {
    const groupLabel = r.group ?? r.label;
    let g = groups.find((x) => x.label === groupLabel);
    if (!g) groups.push((g = { label: groupLabel, bars: [] }));
    const s = r.series ?? '';
    if (!series.includes(s)) series.push(s);
    const value = metricValue[metric](r.summary);
    g.bars.push({ row, series: s, value, label: formatMetric(metric, value), current: current !== undefined && r.setting === current });
  });
  const top = Math.max(...table.rows.map((r) => metricValue[metric](r.summary)), 0);
  const { max, ticks } = scaleTicks(top, metric);
  return { groups, series, max, ticks };
}

/** Round ticks from 0 past the largest value (durations in one unit: "0 ms … 150 ms"). */
function scaleTicks(top: number, metric: Metric): { max: number; ticks: { value: number; label: string }[] } {
  const end = top > 0 ? top : 1;
  if (DURATION[metric]) {
    const t = ticksInUnit([0, end], 'us', 4);
    const step = t.ticks.length > 1 ? t.ticks[1] - t.ticks[0] : end;
    const last = t.ticks[t.ticks.length - 1] ?? end;
    const max = last >= end ? last : last + step;
    const all = last >= end ? t.ticks : [...t.ticks, max];
    return { max, ticks: all.map((v) => ({ value: v, label: t.label(v) })) };
  }
  const nice = linear([0, end], [0, 1]).nice(4);
  const max = nice.domain()[1];
  return { max, ticks: nice.ticks(4).map((v) => ({ value: v, label: metric === 'batch' ? String(v) : formatRate(v) })) };
}
