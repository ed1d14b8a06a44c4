/**
 * The rounds of one A/B side folded into what the table shows: each judged figure as median and range
 * over the rounds, and the verdicts. Spread and verdict are core's (ab-verdict), the same rule the CLI's
 * `inferscope ab --rounds N` applies: a side is better on a figure only when every round of it beat every
 * round of the other.
 */
import { spreadOf, verdictOf, type ABMetric, type ABVerdict, type Spread } from '@inferscope/core/load';

/** What one run of one side measured. */
export interface AbRun {
  throughput: number;
  p50Us: number;
  p99Us: number;
  avgBatch: number;
  rejected: number;
  completed: number;
  /** requests the model served beyond the ones this run's load got answered (other clients' traffic) */
  otherRequests?: number;
  /** per second since the side's start: for plotting the two runs over each other */
  series?: { s: number; throughput: number; p99Us: number }[];
}

export interface AbSide {
  label: string;
  /** every round of this side, in the order run */
  runs: AbRun[];
  spread: Record<ABMetric, Spread>;
  /** summed over the rounds */
  rejected: number;
  completed: number;
  otherRequests: number;
}

export interface AbResult {
  rounds: number;
  sides: [AbSide, AbSide];
  /** per judged figure: the better side's label, or null when the rounds do not separate them */
  verdicts: ABVerdict[];
}

/** Where each judged figure sits in one run. */
export const AB_FIGURE: Record<ABMetric, (r: AbRun) => number> = {
  throughput_per_s: (r) => r.throughput,
  p50_us: (r) => r.p50Us,
  p99_us: (r) => r.p99Us,
  avg_batch_size: (r) => r.avgBatch,
};

const METRICS = Object.keys(AB_FIGURE) as ABMetric[];

export function sideOfRuns(label: string, runs: AbRun[]): AbSide {
  const spread = Object.fromEntries(METRICS.map((m) => [m, spreadOf(runs.map(AB_FIGURE[m]))])) as Record<ABMetric, Spread>;
  const sum = (f: (r: AbRun) => number) => runs.reduce((n, r) => n + f(r), 0);
  return { label, runs, spread, rejected: sum((r) => r.rejected), completed: sum((r) => r.completed), otherRequests: sum((r) => r.otherRequests ?? 0) };
}

export function abVerdicts(a: AbSide, b: AbSide, rounds: number): ABVerdict[] {
  return METRICS.map((m) => verdictOf(m, { label: a.label, spread: a.spread[m] }, { label: b.label, spread: b.spread[m] }, rounds));
}

/** The verdict's better side for a figure (undefined: not judged, or within noise). */
export const betterOn = (r: AbResult, m: ABMetric): string | undefined => r.verdicts.find((v) => v.metric === m)?.better ?? undefined;
