/**
 * Measured spreads as quantile tables: `{ "0.5": 1, "0.99": 4.2 }` means half the measurements were at or
 * below 1 and 99% at or below 4.2. The simulator draws from one by inverse CDF (linear between the
 * listed quantiles), so a batch time or a timer's lateness is as spread, and as heavy-tailed, as it was
 * when it was measured: no fitted shape, no tuning knob.
 */
import type { Rng } from '../load/rng';
import { percentile } from '../util/percentile';

export type Quantiles = Record<string, number>;

/** The quantile levels calibrations record: dense in the tail, where p99 comes from. */
export const QUANTILE_LEVELS = [0, 0.01, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.98, 0.99, 0.995, 0.999, 1] as const;

/** Nearest-rank quantiles of `values` at QUANTILE_LEVELS (0 and 1 are the min and max). */
export function quantilesOf(values: readonly number[], digits = 3): Quantiles {
  if (values.length === 0) throw new Error('quantiles of no values');
  const s = Float64Array.from(values).sort();
  const k = 10 ** digits;
  const out: Quantiles = {};
  for (const p of QUANTILE_LEVELS) out[String(p)] = Math.round(percentile(s, p) * k) / k;
  return out;
}

export function validateQuantiles(q: unknown, what: string): string[] {
  if (typeof q !== 'object' || q === null || Array.isArray(q)) return [`${what}: must be an object {quantile: value}`];
  const pts = Object.entries(q as Record<string, unknown>);
  const problems: string[] = [];
  if (pts.length < 2) problems.push(`${what}: needs at least two quantiles`);
  let last = -Infinity;
  for (const [k, v] of pts.sort((a, b) => Number(a[0]) - Number(b[0]))) {
    const p = Number(k);
    if (!(p >= 0 && p <= 1)) problems.push(`${what}.${k}: quantile levels are numbers in [0, 1]`);
    if (!(typeof v === 'number' && Number.isFinite(v))) problems.push(`${what}.${k}: must be a finite number`);
    else if (v < last) problems.push(`${what}.${k}: quantiles must not decrease`);
    else last = v;
  }
  return problems;
}

/** A sampler for a quantile table: inverse CDF, linear between the listed levels. */
export class EmpiricalDistribution {
  private readonly p: number[];
  private readonly v: number[];

  constructor(q: Quantiles) {
    const pts = Object.entries(q).map(([k, v]) => [Number(k), v] as const).sort((a, b) => a[0] - b[0]);
    if (pts.length < 2) throw new Error('a distribution needs at least two quantiles');
    this.p = pts.map((x) => x[0]);
    this.v = pts.map((x) => x[1]);
  }

  /** the value at quantile u in [0, 1] */
  at(u: number): number {
    const { p, v } = this;
    if (u <= p[0]) return v[0];
    const n = p.length;
    if (u >= p[n - 1]) return v[n - 1];
    let i = 1;
    while (p[i] < u) i++;
    const f = p[i] === p[i - 1] ? 0 : (u - p[i - 1]) / (p[i] - p[i - 1]);
    return v[i - 1] + f * (v[i] - v[i - 1]);
  }

  sample(rng: Rng): number {
    return this.at(rng.next());
  }

  mean(): number {
    // the mean of the piecewise-linear inverse CDF: trapezoids over the levels
    let m = 0;
    for (let i = 1; i < this.p.length; i++) m += ((this.v[i] + this.v[i - 1]) / 2) * (this.p[i] - this.p[i - 1]);
    return m;
  }
}
