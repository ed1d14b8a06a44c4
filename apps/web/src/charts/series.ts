/**
 * Per model-version time series from the per-second stats, plus the y domains that keep the typical
 * value readable. Pure (no DOM), unit-tested under node; drawing code only maps what these return.
 */
import { FAILURE_REASONS, type FailureReason, type ModelAggregate, type StatsMessage } from '@inferscope/core';
import { aggregatesFor } from './scales';
import { noFailures, percentileOf } from '@inferscope/core/stats';

export interface SeriesPoint {
  t: number;
  v: number;
}

export interface Series {
  /** `model:version` */
  key: string;
  points: SeriesPoint[];
}

/** One series per model version in `stats` (filtered by the selection key), in order of first appearance. */
export function seriesByVersion(stats: StatsMessage[], key: string, pick: (a: ModelAggregate) => number): Series[] {
  const out = new Map<string, Series>();
  for (const s of stats) {
    for (const a of aggregatesFor(s, key)) {
      const k = `${a.model}:${a.version}`;
      let ser = out.get(k);
      if (!ser) out.set(k, (ser = { key: k, points: [] }));
      const v = pick(a);
      if (Number.isFinite(v)) ser.points.push({ t: s.t, v });
    }
  }
  return [...out.values()];
}

/** Requests waiting in the queue (all priority levels): Triton's nv_inference_pending_request_count. */
export const pendingOf = (a: ModelAggregate): number => Object.values(a.queue_depth).reduce((x, y) => x + y, 0);

/**
 * Failures per second by Triton reason, summed over the selected versions: the difference of the running
 * totals between consecutive stats messages (a drop means the server restarted: counted from zero).
 */
export function failureRates(stats: StatsMessage[], key: string): { t: number; perS: Record<FailureReason, number> }[] {
  const prev = new Map<string, Record<FailureReason, number>>();
  const out: { t: number; perS: Record<FailureReason, number> }[] = [];
  let prevT: number | undefined;
  for (const s of stats) {
    const perS = noFailures();
    const dtS = prevT === undefined ? 0 : (s.t - prevT) / 1e6;
    for (const a of aggregatesFor(s, key)) {
      const k = `${a.model}:${a.version}`;
      const cur = a.failures ?? noFailures();
      const before = prev.get(k);
      if (before && dtS > 0) {
        for (const r of FAILURE_REASONS) {
          const d = cur[r] - before[r];
          perS[r] += (d >= 0 ? d : cur[r]) / dtS;
        }
      }
      prev.set(k, cur);
    }
    if (prevT !== undefined) out.push({ t: s.t, perS });
    prevT = s.t;
  }
  return out;
}

/** The value below which a share `q` of the values lie (nearest rank). */
export function quantile(values: number[], q: number): number {
  return percentileOf(values.filter(Number.isFinite), q);
}

export interface RobustDomain {
  max: number;
  /** values above max: drawn clipped at the top edge, with a mark */
  clipped: number;
}

/**
 * A y maximum that shows the typical value: the largest value when it is within `headroom` times the
 * p95, otherwise p95 × headroom, so one 200 ms spike does not flatten a 4 ms line into the axis. The
 * spikes above it are counted (the chart marks them where they are clipped).
 */
export function robustMax(values: number[], opts: { floor?: number; headroom?: number; q?: number } = {}): RobustDomain {
  const finite = values.filter((v) => Number.isFinite(v) && v >= 0);
  const floor = opts.floor ?? 1;
  const top = finite.reduce((m, v) => Math.max(m, v), 0);
  const cap = quantile(finite, opts.q ?? 0.95) * (opts.headroom ?? 1.5);
  const max = niceCeil(Math.max(floor, top <= cap || cap <= 0 ? top * 1.1 : cap));
  return { max, clipped: finite.filter((v) => v > max).length };
}

/** Rounds up to 1, 2, 2.5 or 5 times a power of ten. */
export function niceCeil(v: number): number {
  if (!(v > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v * (1 - 1e-9)) return m * p;
  return 10 * p;
}

/** A log-scale domain covering the positive values (log cannot show 0): [10^floor(min), 10^ceil(max)]. */
export function logDomain(values: number[], floorValue = 1): [number, number] {
  const pos = values.filter((v) => Number.isFinite(v) && v > 0);
  const lo = Math.max(floorValue, pos.reduce((m, v) => Math.min(m, v), Infinity));
  const hi = pos.reduce((m, v) => Math.max(m, v), floorValue * 10);
  const a = 10 ** Math.floor(Math.log10(Number.isFinite(lo) ? lo : floorValue));
  const b = 10 ** Math.ceil(Math.log10(hi));
  return [a, b > a ? b : a * 10];
}
