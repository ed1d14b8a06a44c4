/**
 * THE percentile of InferScope: nearest rank, on the 0..1 scale (p 0.99 = p99). Server (perf, load
 * runs), dashboard, simulator, CLI and benches all read percentiles through it, so a p99 means the same
 * number everywhere. (LogHistogram.percentile answers the same question from buckets, within 1%.)
 *
 * Nearest rank: the smallest value with at least a share `p` of all values at or below it, i.e. the
 * value at rank ceil(p * n) (1-based); p 0 gives the minimum, p 1 the maximum.
 */

/** Nearest-rank percentile of values sorted ascending; 0 when there are none. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(p * sorted.length)));
  return sorted[rank - 1]!;
}

/** The same, of values in any order (sorts a copy). */
export function percentileOf(values: Iterable<number>, p: number): number {
  return percentile(Float64Array.from(values).sort(), p);
}

/** p50, p90, p99 and the largest: what every distribution table (the generative figures, perf's) reports. */
export interface Percentiles {
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/** The same of values in any order, sorted once. */
export function percentilesOf(values: Iterable<number>): Percentiles {
  const s = Float64Array.from(values).sort();
  return { p50: percentile(s, 0.5), p90: percentile(s, 0.9), p99: percentile(s, 0.99), max: percentile(s, 1) };
}
