/**
 * The spread of repeated A/B rounds and the verdict it allows. One run per side cannot tell a difference
 * from the machine's noise, so each figure is reported as median and range over the rounds, and a side is
 * called better on a figure only when the two ranges do not overlap (every round of one side beat every
 * round of the other). With one round there is no spread and so no verdict.
 */
export interface Spread {
  median: number;
  min: number;
  max: number;
}

export type ABMetric = 'throughput_per_s' | 'p50_us' | 'p99_us' | 'avg_batch_size';

/** Which direction is better for each figure. */
export const HIGHER_IS_BETTER: Record<ABMetric, boolean> = { throughput_per_s: true, p50_us: false, p99_us: false, avg_batch_size: true };

export interface ABVerdict {
  metric: ABMetric;
  /** the better side's label, or null when the rounds do not separate the two */
  better: string | null;
  why: string;
}

export function spreadOf(values: readonly number[]): Spread {
  const s = [...values].sort((a, b) => a - b);
  if (s.length === 0) return { median: 0, min: 0, max: 0 };
  const mid = s.length >> 1;
  const median = s.length % 2 === 1 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
  return { median, min: s[0], max: s[s.length - 1] };
}

export function verdictOf(metric: ABMetric, a: { label: string; spread: Spread }, b: { label: string; spread: Spread }, rounds: number): ABVerdict {
  if (rounds < 2) return { metric, better: null, why: 'one round per side: no spread to judge by (run 3 rounds or more)' };
  const higher = HIGHER_IS_BETTER[metric];
  const aAbove = a.spread.min > b.spread.max;
  const bAbove = b.spread.min > a.spread.max;
  if (!aAbove && !bAbove) return { metric, better: null, why: `within noise: the ranges of ${rounds} rounds overlap` };
  const better = aAbove === higher ? a : b;
  return { metric, better: better.label, why: `every round of ${better.label} beat every round of the other side` };
}
