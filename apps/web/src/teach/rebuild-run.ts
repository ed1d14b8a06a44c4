/**
 * Lesson 15 "the batch is rebuilt every step": the same seeded arrivals (short and long outputs mixed)
 * through the request-level baseline (`StaticBatchPlanner`: a batch fixed until its longest member ends)
 * and the continuous planner, each a run of core's simulator (gen-run.ts). The knob switches the timeline
 * between the two; the verdict reads both rows.
 */
import type { GenArrival, GenBatching } from '@inferscope/core/iterative';
import { percentile } from '@inferscope/core/sim';
import { BASE_KNOBS, cached, decodeStepUs, firstTokenSteps, GEN_COST, GEN_SEED, meanStepUs, poissonArrivals, promptOf, runGeneration, type GenRun } from './gen-run';

export const BATCHINGS: GenBatching[] = ['static', 'continuous'];
/**
 * 24 requests, Poisson, one per 6 full decode steps on average (about 1.6x what request-level batches of
 * 8 serve when most hold a long answer); a quarter want a long answer (48-96 tokens), the rest 4-16
 */
export const REBUILD_WORKLOAD = { count: 24, gapSteps: 6, short: [4, 16], long: [48, 96], longShare: 0.25, prompt: [4, 12] } as const;

/** the offered rate, from the step cost (gen-run.ts decodeStepUs) */
export const rebuildRatePerS = (cost = GEN_COST) => 1e6 / (REBUILD_WORKLOAD.gapSteps * decodeStepUs(BASE_KNOBS.maxNumSequences, cost));

export function rebuildArrivals(seed = GEN_SEED, cost = GEN_COST): GenArrival[] {
  const w = REBUILD_WORKLOAD;
  return poissonArrivals(seed, w.count, rebuildRatePerS(cost), (rng) => {
    const prompt = promptOf(rng, rng.int(w.prompt[0], w.prompt[1]));
    return { prompt, maxTokens: rng.next() < w.longShare ? rng.int(w.long[0], w.long[1]) : rng.int(w.short[0], w.short[1]) };
  });
}

export interface RebuildRow extends GenRun {
  batching: GenBatching;
  meanStepUs: number;
}

export const runRebuild = cached((batching: GenBatching): RebuildRow => simulateRebuild(batching));

/** a fresh run (no cache) */
export function simulateRebuild(batching: GenBatching, seed = GEN_SEED, cost = GEN_COST): RebuildRow {
  const run = runGeneration(BASE_KNOBS, batching, rebuildArrivals(seed, cost), false, cost);
  return { ...run, batching, meanStepUs: meanStepUs(run.events) };
}

/** What the verdict says and its claim tests, from the two rows. */
export function rebuildFigures(rows: readonly RebuildRow[]) {
  const of = (b: GenBatching) => rows.find((r) => r.batching === b)!;
  const s = of('static').summary;
  const c = of('continuous').summary;
  return {
    tokensStatic: s.outputTokens, tokensContinuous: c.outputTokens,
    spanStatic: s.spanUs, spanContinuous: c.spanUs,
    tpsStatic: s.outputTokensPerSec, tpsContinuous: c.outputTokensPerSec,
    ttftP50Static: s.ttftUs.p50, ttftP50Continuous: c.ttftUs.p50,
    ttftP99Static: s.ttftUs.p99, ttftP99Continuous: c.ttftUs.p99,
    padStatic: s.padSlots,
    /** continuous: the steps a newcomer saw until its first token (the one running when it came, then its own), p50 */
    ttftStepsContinuous: percentile(Float64Array.from(firstTokenSteps(of('continuous').events)).sort(), 0.5),
  };
}
