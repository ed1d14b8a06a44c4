/**
 * One analysis, shared by `inferscope analyze` (over the socket) and the dashboard's server-side sweep:
 * read the model's live config, build the grid within what can change live, sweep (with pruning),
 * re-measure the leaders, rank. Where the deps come from (socket or in process) is the caller's business.
 */
import type { ModelSnapshot, RankedResult } from '@inferscope/core';
import { gridConfigs, type SearchSpace, type SweepConfig } from './search-space';
import { rankResults, recommend, type Budgets, type Recommendation } from '@inferscope/core/load';
import { confirmLeaders, runSweep, type SweepDeps, type SweepRun } from './sweep';

/** The live config of a model version as a sweep config; refuses a model without dynamic batching. */
export function originalConfig(row: ModelSnapshot): SweepConfig {
  const cfg = row.config as { max_batch_size?: number; dynamic_batching?: Record<string, unknown> };
  const loadedMax = Number(cfg.max_batch_size ?? 0);
  if (!(loadedMax > 0) || !cfg.dynamic_batching) throw new Error(`model '${row.name}' has no dynamic batching to tune (max_batch_size ${loadedMax})`);
  const db = cfg.dynamic_batching;
  return {
    instances: row.instances.length,
    max_batch_size: loadedMax,
    max_queue_delay_microseconds: Number(db.max_queue_delay_microseconds ?? 0),
    preferred_batch_size: ((db.preferred_batch_size as number[] | undefined) ?? []).map(Number),
  };
}

/** The grid around `original`: absent axes keep the live value; max_batch_size can only go down live. */
export function planConfigs(original: SweepConfig, axes: { instances?: number[]; maxBatch?: number[]; delayUs: number[]; preferred: SearchSpace['preferred'] }): SweepConfig[] {
  const maxBatch = axes.maxBatch ?? [original.max_batch_size];
  const tooBig = maxBatch.filter((b) => b > original.max_batch_size);
  if (tooBig.length) throw new Error(`max_batch ${tooBig.join(',')}: max_batch_size can only be lowered live (loaded: ${original.max_batch_size})`);
  return gridConfigs({ instances: axes.instances ?? [original.instances], maxBatch, delayUs: axes.delayUs, preferred: axes.preferred });
}

export interface AnalysisOptions extends Budgets {
  search: 'grid' | 'prune';
  /** leaders re-measured at the end */
  confirm: number;
  /** measurements per config (default 1) */
  repeat?: number;
}

export interface Analysis {
  run: SweepRun;
  ranked: RankedResult[];
  /** the best config, or the closest to the budgets when none meets them */
  recommendation?: Recommendation;
}

export async function runAnalysis(configs: readonly SweepConfig[], deps: SweepDeps, o: AnalysisOptions): Promise<Analysis> {
  const run = await runSweep(configs, deps, { search: o.search, repeat: o.repeat });
  const results = o.confirm > 0 ? await confirmLeaders(run, deps, o.confirm, (rs) => rankResults(rs, o).filter((r) => r.rank !== null)) : run.results;
  const ranked = rankResults(results, o);
  return { run, ranked, recommendation: recommend(ranked, o) };
}
