/**
 * Pure helpers that turn live data into chart domains and series. Kept free of the DOM so they are
 * unit-tested under node; drawing code only maps what these return.
 */
import { scaleLinear, type ScaleLinear } from 'd3';
import type { ModelAggregate, StatsMessage } from '@inferscope/core';

/** The visible time range in µs: the window (µs) ending now. */
export function timeDomain(nowUs: number, spanUs: number): [number, number] {
  return [nowUs - spanUs, nowUs];
}

/** A y domain from 0 to a nice maximum above the data (never empty, so a flat line still draws). */
export function niceMax(values: Iterable<number>, floor = 1): number {
  let max = 0;
  for (const v of values) if (Number.isFinite(v) && v > max) max = v;
  const y = scaleLinear().domain([0, Math.max(max * 1.1, floor)]).nice();
  return y.domain()[1];
}

export function linear(domain: [number, number], range: [number, number]): ScaleLinear<number, number> {
  return scaleLinear().domain(domain).range(range);
}

/** Sum batch-size histograms over the stats messages inside the window, sorted by batch size. */
export function mergeHistograms(aggs: ModelAggregate[]): { size: number; count: number }[] {
  const sum = new Map<number, number>();
  for (const a of aggs) for (const [k, v] of Object.entries(a.batch_size_histogram)) sum.set(Number(k), (sum.get(Number(k)) ?? 0) + v);
  return [...sum.entries()].filter(([, c]) => c > 0).sort((x, y) => x[0] - y[0]).map(([size, count]) => ({ size, count }));
}

/** Aggregates of the chosen models (all when key is 'all') from one stats message. */
export function aggregatesFor(s: StatsMessage, key: string): ModelAggregate[] {
  if (key === 'all') return s.models;
  return s.models.filter((a) => `${a.model}:${a.version}` === key);
}

export interface CombinedPoint {
  t: number;
  throughput: number;
  p50: number;
  p90: number;
  p99: number;
  queueUs: number;
  computeUs: number;
  inFlight: number;
  requestsPerS: number;
  meanUs: number;
}

/**
 * One point per stats message for a model or all models. Across models, rates add up and latencies are
 * weighted by request rate (percentiles across models are approximated by the worst model's, which is
 * what an operator watching for trouble wants to see).
 */
export function combine(s: StatsMessage, key: string): CombinedPoint | undefined {
  const aggs = aggregatesFor(s, key);
  if (aggs.length === 0) return undefined;
  let throughput = 0, rps = 0, inFlight = 0, wq = 0, wc = 0, wm = 0, p50 = 0, p90 = 0, p99 = 0;
  for (const a of aggs) {
    throughput += a.throughput_per_s;
    rps += a.requests_per_s;
    inFlight += a.in_flight;
    wq += a.queue_us_mean * a.requests_per_s;
    wc += a.compute_us_mean * a.requests_per_s;
    wm += a.latency_us.mean * a.requests_per_s;
    p50 = Math.max(p50, a.latency_us.p50);
    p90 = Math.max(p90, a.latency_us.p90);
    p99 = Math.max(p99, a.latency_us.p99);
  }
  const w = rps || 1;
  return { t: s.t, throughput, requestsPerS: rps, inFlight, queueUs: wq / w, computeUs: wc / w, meanUs: wm / w, p50, p90, p99 };
}

/** Little's law L = λ·W: the in-flight count the rate and latency predict, next to the measured one. */
export function littlesLaw(p: Pick<CombinedPoint, 'requestsPerS' | 'meanUs' | 'inFlight'>): { predicted: number; measured: number; ratio: number } {
  const predicted = p.requestsPerS * (p.meanUs / 1_000_000);
  return { predicted, measured: p.inFlight, ratio: predicted > 0 ? p.inFlight / predicted : 0 };
}

/** Group throughput-vs-p99 points by configuration label: one colour and one mean marker per config. */
export function groupByConfig<T extends { config: string; throughput: number; p99Us: number }>(points: T[]): { config: string; points: T[]; meanThroughput: number; meanP99Us: number }[] {
  const groups = new Map<string, T[]>();
  for (const p of points) {
    const g = groups.get(p.config);
    if (g) g.push(p);
    else groups.set(p.config, [p]);
  }
  return [...groups.entries()].map(([config, pts]) => ({
    config,
    points: pts,
    meanThroughput: pts.reduce((s, p) => s + p.throughput, 0) / pts.length,
    meanP99Us: pts.reduce((s, p) => s + p.p99Us, 0) / pts.length,
  }));
}
