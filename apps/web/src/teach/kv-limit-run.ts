/**
 * Lesson 16 "memory, not compute, is the limit": the same seeded arrivals through the continuous planner
 * with the KV budget shrunk (the knob: blocks of 16 tokens) under each admission policy:
 * guaranteed_no_evict admits only what it can finish, max_utilization admits on the first chunk and
 * preempts (recomputes) the newest sequence when a block is missing. Every row is a run of core's
 * simulator (gen-run.ts); the picture is the KV block map at a step of the run shown.
 */
import type { GenArrival } from '@inferscope/core/iterative';
import type { KvAdmissionPolicy } from '@inferscope/core/kv-cache';
import { BASE_KNOBS, cached, decodeStepUs, GEN_COST, GEN_SEED, poissonArrivals, promptOf, runGeneration, type GenRun } from './gen-run';
import { stepEnds } from './gen-reveal';

export const POLICIES: KvAdmissionPolicy[] = ['guaranteed_no_evict', 'max_utilization'];
/** the knob: KV blocks of 16 tokens (64 hold every sequence's maximum at once; 8 hold one and a half) */
export const BLOCK_CHOICES = [64, 32, 16, 8];
/** the knobs the lesson opens with: a budget that preempts, under the policy that does */
export const KV_OPENING: { policy: KvAdmissionPolicy; blocks: number } = { policy: 'max_utilization', blocks: 16 };
/** 16 requests, Poisson, one per 1.25 full decode steps on average: prompts of 8-24 tokens, answers of 24-64 */
export const KV_WORKLOAD = { count: 16, gapSteps: 1.25, prompt: [8, 24], output: [24, 64] } as const;

/** the offered rate, from the step cost (gen-run.ts decodeStepUs) */
export const kvRatePerS = (cost = GEN_COST) => 1e6 / (KV_WORKLOAD.gapSteps * decodeStepUs(BASE_KNOBS.maxNumSequences, cost));

export function kvArrivals(seed = GEN_SEED, cost = GEN_COST): GenArrival[] {
  const w = KV_WORKLOAD;
  return poissonArrivals(seed, w.count, kvRatePerS(cost), (rng) => ({ prompt: promptOf(rng, rng.int(w.prompt[0], w.prompt[1])), maxTokens: rng.int(w.output[0], w.output[1]) }));
}

export interface KvRow extends GenRun {
  policy: KvAdmissionPolicy;
  blocks: number;
}

export const runKv = cached(([policy, blocks]: [KvAdmissionPolicy, number]): KvRow => simulateKv(policy, blocks));

/** a fresh run (no cache) */
export function simulateKv(policy: KvAdmissionPolicy, blocks: number, seed = GEN_SEED, cost = GEN_COST): KvRow {
  return { ...runGeneration({ ...BASE_KNOBS, policy, totalBlocks: blocks }, 'continuous', kvArrivals(seed, cost), true, cost), policy, blocks };
}

export function kvRows(): KvRow[] {
  return POLICIES.flatMap((p) => BLOCK_CHOICES.map((b) => runKv([p, b])));
}

/** What the verdict says and its claim tests: the largest and the smallest budget of each policy. */
export function kvFigures(rows: readonly KvRow[]) {
  const at = (p: KvAdmissionPolicy, b: number) => rows.find((r) => r.policy === p && r.blocks === b)!.summary;
  const big = Math.max(...BLOCK_CHOICES);
  const small = Math.min(...BLOCK_CHOICES);
  return {
    big, small,
    tpsBig: at('guaranteed_no_evict', big).outputTokensPerSec,
    tpsSmallNoEvict: at('guaranteed_no_evict', small).outputTokensPerSec,
    tpsSmallMaxUtil: at('max_utilization', small).outputTokensPerSec,
    ttftP99Big: at('guaranteed_no_evict', big).ttftUs.p99,
    ttftP99SmallNoEvict: at('guaranteed_no_evict', small).ttftUs.p99,
    itlP99Big: at('max_utilization', big).interTokenUs.p99,
    itlP99SmallMaxUtil: at('max_utilization', small).interTokenUs.p99,
    preemptBig: at('max_utilization', big).preemptions,
    preemptSmallMaxUtil: at('max_utilization', small).preemptions,
    preemptNoEvict: Math.max(...BLOCK_CHOICES.map((b) => at('guaranteed_no_evict', b).preemptions)),
  };
}

/** The step the block map opens on: the run's first preemption, else its fullest step. */
export function openingStep(run: GenRun): number {
  const pre = run.events.find((e) => e.type === 'seq_preempted');
  if (pre?.type === 'seq_preempted') return pre.step;
  let best = 1;
  let used = -1;
  for (const e of run.events) if (e.type === 'step_finished' && e.kv.usedBlocks > used) [best, used] = [e.step, e.kv.usedBlocks];
  return best;
}

/** The simulated time the lesson opens at: when its opening run's opening step ended (playback seeks there). */
export function kvOpeningUs(): number {
  const run = runKv([KV_OPENING.policy, KV_OPENING.blocks]);
  return stepEnds(run)[openingStep(run) - 1] ?? 0;
}
