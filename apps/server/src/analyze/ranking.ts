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
    ...inBudget.map((r, i) => ({ ...r, rank: i + 1, pareto: front.has(configKey(r.config)) })),
    ...out.map((r) => ({ ...r, rank: null, pareto: front.has(configKey(r.config)), excluded: why(r) })),
  ];
}
