/**
 * What a sweep concludes: the throughput-vs-p99 Pareto set, a ranking against the latency budget and the
 * memory budget, and what to run. Pure and deterministic (ties broken by the config key), so `inferscope
 * analyze`, the server's sweep and the dashboard's sweep panel conclude the same from the same rows.
 */
import type { RankedResult, SweepConfig, SweepResult } from '../live/protocol';

/** One config's key: equal configs, equal keys. */
export const sweepConfigKey = (c: SweepConfig): string =>
  `i${c.instances}/b${c.max_batch_size}/d${c.max_queue_delay_microseconds}/p${c.preferred_batch_size.join('+') || '-'}`;

/** Results no other result beats on both throughput (higher) and p99 (lower). */
export function paretoSet(results: readonly SweepResult[]): Set<string> {
  const front = new Set<string>();
  for (const r of results) {
    const dominated = results.some((o) => o !== r &&
      o.throughput_per_s >= r.throughput_per_s && o.latency_us.p99 <= r.latency_us.p99 &&
      (o.throughput_per_s > r.throughput_per_s || o.latency_us.p99 < r.latency_us.p99));
    if (!dominated) front.add(sweepConfigKey(r.config));
  }
  return front;
}

export interface Budgets {
  latencyBudgetUs?: number;
  memoryBudgetBytes?: number;
}

/**
 * Configs within both budgets and without errors, best first: highest throughput, then lowest p99.
 * The rest follow, unranked, with the reason.
 */
export function rankResults(results: readonly SweepResult[], b: Budgets): RankedResult[] {
  const front = paretoSet(results);
  const why = (r: SweepResult): string | undefined => {
    if (r.errors > 0) return `${r.errors} errors`;
    if (b.latencyBudgetUs !== undefined && r.latency_us.p99 > b.latencyBudgetUs) return 'p99 over the latency budget';
    if (b.memoryBudgetBytes !== undefined && r.memory_bytes > b.memoryBudgetBytes) return 'over the memory budget';
    return undefined;
  };
  const order = (x: SweepResult, y: SweepResult) =>
    y.throughput_per_s - x.throughput_per_s || x.latency_us.p99 - y.latency_us.p99 || sweepConfigKey(x.config).localeCompare(sweepConfigKey(y.config));
  const inBudget = results.filter((r) => !why(r)).sort(order);
  const out = results.filter((r) => why(r)).sort(order);
  return [
    ...inBudget.map((r, i) => ({ ...r, rank: i + 1, pareto: front.has(sweepConfigKey(r.config)), ...noiseAgainst(inBudget[i - 1], r, i) })),
    ...out.map((r) => ({ ...r, rank: null, pareto: front.has(sweepConfigKey(r.config)), excluded: why(r) })),
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
export function recommend(ranked: readonly RankedResult[], b: Budgets): Recommendation | undefined {
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
