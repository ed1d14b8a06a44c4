/**
 * What a sweep concludes: the throughput-vs-p99 Pareto set and a ranking against the latency budget and
 * the memory budget. Pure and deterministic (ties broken by the config key).
 */
import type { RankedResult, SweepResult } from '@inferscope/core';
import { configKey } from './search-space';

/** Declared once in the live protocol (the dashboard's Sweep panel reads the same shape). */
export type { SweepResult };

/** Results no other result beats on both throughput (higher) and p99 (lower). */
export function paretoSet(results: readonly SweepResult[]): Set<string> {
  const front = new Set<string>();
  for (const r of results) {
    const dominated = results.some((o) => o !== r &&
      o.throughput_per_s >= r.throughput_per_s && o.latency_us.p99 <= r.latency_us.p99 &&
      (o.throughput_per_s > r.throughput_per_s || o.latency_us.p99 < r.latency_us.p99));
    if (!dominated) front.add(configKey(r.config));
  }
  return front;
}

export type Ranked = RankedResult;

export interface Budgets {
  latencyBudgetUs?: number;
  memoryBudgetBytes?: number;
}

/**
 * Configs within both budgets and without errors, best first: highest throughput, then lowest p99.
 * The rest follow, unranked, with the reason.
 */
export function rankResults(results: readonly SweepResult[], b: Budgets): Ranked[] {
  const front = paretoSet(results);
  const why = (r: SweepResult): string | undefined => {
    if (r.errors > 0) return `${r.errors} errors`;
    if (b.latencyBudgetUs !== undefined && r.latency_us.p99 > b.latencyBudgetUs) return 'p99 over the latency budget';
    if (b.memoryBudgetBytes !== undefined && r.memory_bytes > b.memoryBudgetBytes) return 'over the memory budget';
    return undefined;
  };
  const order = (x: SweepResult, y: SweepResult) =>
    y.throughput_per_s - x.throughput_per_s || x.latency_us.p99 - y.latency_us.p99 || configKey(x.config).localeCompare(configKey(y.config));
  const inBudget = results.filter((r) => !why(r)).sort(order);
  const out = results.filter((r) => why(r)).sort(order);
  return [
    ...inBudget.map((r, i) => ({ ...r, rank: i + 1, pareto: front.has(configKey(r.config)), ...noiseAgainst(inBudget[i - 1], r, i) })),
    ...out.map((r) => ({ ...r, rank: null, pareto: front.has(configKey(r.config)), excluded: why(r) })),
  ];
}

/** With repeats: whether r's throughput range overlaps the one ranked just above it (rank `i`). */
function noiseAgainst(above: SweepResult | undefined, r: SweepResult, i: number): { within_noise_of?: number } {
  if (!above?.spread || !r.spread) return {};
  return r.spread.throughput_per_s[1] >= above.spread.throughput_per_s[0] ? { within_noise_of: i } : {};
}

export interface Recommendation {
  result: SweepResult;
  /** true: rank 1 within every budget; false: nothing met them and this is the closest */
  meets: boolean;
  /** how far the closest config misses, in words (absent when it meets the budgets) */
  misses?: string;
}

/**
 * What to run: the best ranked config, or when nothing meets the budgets the error-free config closest to
 * them (the smallest p99 excess over the latency budget, then the most throughput), with by how much it
 * misses, so an engineer always leaves with an answer and its distance from the target.
 */
export function recommend(ranked: readonly Ranked[], b: Budgets): Recommendation | undefined {
  const best = ranked.find((r) => r.rank === 1);
  if (best) return { result: best, meets: true };
  const candidates = ranked.filter((r) => r.errors === 0 && (b.memoryBudgetBytes === undefined || r.memory_bytes <= b.memoryBudgetBytes));
  const pool = candidates.length > 0 ? candidates : ranked.filter((r) => r.errors === 0);
  if (pool.length === 0 || b.latencyBudgetUs === undefined) return pool[0] ? { result: pool[0], meets: false, misses: pool[0].excluded } : undefined;
  const budget = b.latencyBudgetUs;
  const closest = [...pool].sort((x, y) => x.latency_us.p99 - y.latency_us.p99 || y.throughput_per_s - x.throughput_per_s)[0];
  const over = closest.latency_us.p99 - budget;
  const memory = candidates.length === 0 ? '; every error-free config is also over the memory budget' : '';
  return { result: closest, meets: false, misses: `p99 ${(closest.latency_us.p99 / 1000).toFixed(2)} ms misses the ${(budget / 1000).toFixed(2)} ms budget by ${(over / 1000).toFixed(2)} ms (${((over / budget) * 100).toFixed(0)}%)${memory}` };
}
