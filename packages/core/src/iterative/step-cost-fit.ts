/**
 * The simulator's step cost (sim-step.ts: fixed + per sequence + per new token, padded slots counted as a
 * sequence and a token each, as `stepCostUs` charges them) fitted to measured steps of a real model by
 * least squares. A coefficient the data would make negative (a cost cannot be) is dropped and the rest
 * refitted, so the table is always one the simulator can charge.
 *
 * Ordinary least squares over every step, not a robust fit: a step the host stretched (the garbage
 * collector, a shared machine) is part of what serving costs, and with the fixed cost kept the fitted
 * times add up to the measured ones, so a simulation of the same steps takes the time they took.
 */
import type { StepBatch } from './types';
import type { StepCost } from './sim-step';

/** One measured step: its shape as the simulator charges it, and how long it took. */
export interface StepSample {
  rows: number;
  padSlots: number;
  tokens: number;
  us: number;
}

export function stepSampleOf(batch: Pick<StepBatch, 'rows' | 'padSlots' | 'tokens'>, us: number): StepSample {
  return { rows: batch.rows.length, padSlots: batch.padSlots, tokens: batch.tokens, us };
}

const FEATURES: ((s: StepSample) => number)[] = [() => 1, (s) => s.rows + s.padSlots, (s) => s.tokens + s.padSlots];
const KEYS = ['fixed_us', 'per_sequence_us', 'per_token_us'] as const;

/** Least squares over the features kept; undefined when they are linearly dependent on these samples. */
function solve(samples: readonly StepSample[], kept: number[]): number[] | undefined {
  const n = kept.length;
  const a = Array.from({ length: n }, () => new Array<number>(n + 1).fill(0));
  for (const s of samples) {
    const x = kept.map((k) => FEATURES[k]!(s));
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) a[i]![j]! += x[i]! * x[j]!;
      a[i]![n]! += x[i]! * s.us;
    }
  }
  // Gauss-Jordan with partial pivoting on the normal equations (at most 3 x 3)
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(a[r]![c]!) > Math.abs(a[p]![c]!)) p = r;
    if (Math.abs(a[p]![c]!) < 1e-9) return undefined;
    [a[c], a[p]] = [a[p]!, a[c]!];
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = a[r]![c]! / a[c]![c]!;
      for (let j = c; j <= n; j++) a[r]![j]! -= f * a[c]![j]!;
    }
  }
  return a.map((row, i) => row[n]! / row[i]!);
}

/** The cost table fitted to `samples` (at least one), with the fit's R² and mean absolute error in percent. */
export function fitStepCost(samples: readonly StepSample[]): { cost: StepCost; r2: number; meanErrorPct: number } {
  if (samples.length === 0) throw new RangeError('cannot fit a step cost to no steps');
  let kept = [0, 1, 2];
  let coef: number[] | undefined;
  for (;;) {
    coef = solve(samples, kept);
    // dependent features (e.g. every step the same shape): drop the last kept one and refit
    if (!coef) {
      kept = kept.slice(0, -1);
      continue;
    }
    const negative = coef.findIndex((c) => c < 0);
    if (negative < 0) break;
    kept = kept.filter((_, i) => i !== negative);
    if (kept.length === 0) break;
  }
  const round = (v: number) => Math.round(v * 100) / 100;
  const cost = { fixed_us: 0, per_sequence_us: 0, per_token_us: 0 } as StepCost;
  kept.forEach((k, i) => (cost[KEYS[k]!] = round(coef?.[i] ?? 0)));
  const predict = (s: StepSample) => FEATURES.reduce((t, f, k) => t + f(s) * cost[KEYS[k]!], 0);
  const mean = samples.reduce((t, s) => t + s.us, 0) / samples.length;
  const ssTot = samples.reduce((t, s) => t + (s.us - mean) ** 2, 0);
  const ssRes = samples.reduce((t, s) => t + (s.us - predict(s)) ** 2, 0);
  const meanErrorPct = (100 * samples.reduce((t, s) => t + Math.abs(predict(s) - s.us) / Math.max(s.us, 1e-9), 0)) / samples.length;
  return { cost, r2: ssTot > 0 ? 1 - ssRes / ssTot : 1, meanErrorPct };
}
