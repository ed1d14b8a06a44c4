/**
 * The generative lessons' runs (15 the batch is rebuilt every step, 16 memory is the limit, 17 long prompts
 * stall everyone): core's `simulateGeneration`, the scheduler the server runs for tiny_lm_generate, on the
 * virtual clock with the simulator's step executor; the token timeline folded by core's `TokenTimeline`
 * and the figures by core's `GenFigures` from the same events. Each lesson's own file picks its workload
 * and knobs; this one runs them and reads what every verdict needs.
 */
import { simulateGeneration, stepCostCalibration, stepCostUs, TokenTimeline, type GenArrival, type GenBatching, type GenRequest, type GenSummary, type IterativeKnobs, type IterEvent, type StepCost, type StepRow, type TimelineCell } from '@inferscope/core/iterative';
import { KvBlockAllocator, type KvBlockAllocatorOptions, type KvBlockMap } from '@inferscope/core/kv-cache';
import { Rng } from '@inferscope/core/load';
import type { GenCostSource } from '../i18n/lesson-rebuild';

export type { GenCostSource };

/**
 * Used only where core ships no fitted step cost of tiny_lm_generate: orders of magnitude of a small CPU
 * decoder (a step's fixed launch, each sequence's attention over its cache, each new token's matrix work),
 * and the screen then says the cost is modelled.
 */
export const TINY_LM_MODELLED_COST: StepCost = { fixed_us: 1500, per_sequence_us: 250, per_token_us: 60 };


/**
 * tiny_lm_generate's step cost fitted to the server's own continuous steps (core's iterative calibrations),
 * else the modelled one. Lesson 15 charges its request-level runs the same cost, so the one difference it
 * shows is the scheduler's: the server's request-level steps cost it less on a small host, where a
 * continuous step's streaming shares the cores (bench/generate/README.md), which is the host's story.
 */
export function genCostSource(): GenCostSource {
  const fit = stepCostCalibration('tiny_lm_generate')?.fits.continuous;
  return fit ? { kind: 'fitted', cost: fit.cost, steps: fit.steps, r2: fit.r2 } : { kind: 'modelled', cost: TINY_LM_MODELLED_COST };
}
export const GEN_COST: StepCost = genCostSource().cost;

/**
 * µs of a decode step of `n` sequences at the lessons' cost: the workloads space their arrivals in these
 * steps, so a lesson shows the same shape on a faster or slower fit (as rates.ts does for the request-level
 * lessons) instead of an overload fixed for one machine.
 */
export function decodeStepUs(n: number, cost = GEN_COST): number {
  return stepCostUs(cost, { rows: new Array<StepRow>(n), tokens: n, padSlots: 0 });
}
export const GEN_SEED = 1;

/** The knobs every lesson starts from: tiny_lm_generate's shipped parameters (8 sequences, 256 tokens per step, blocks of 16 tokens, 4096 tokens of KV cache). */
export const BASE_KNOBS: IterativeKnobs = {
  maxNumSequences: 8, maxNumTokens: 256, enableChunkedContext: false, policy: 'guaranteed_no_evict', totalBlocks: 256, blockTokens: 16,
};

export interface GenRun {
  summary: GenSummary;
  cells: readonly TimelineCell[];
  /** the timeline's rows (slots ever used) and steps */
  slots: number;
  steps: number;
  /** µs at which each step started, and how long it took, by step number (1-based; index 0 unused) */
  stepStart: number[];
  stepUs: number[];
  /** requests answered in full, and every request sent */
  completed: number;
  sent: number;
  events: IterEvent[];
}

/** `blockMaps`: every step_finished event carries the KV block map after it (lesson 16 draws it per step) */
export function runGeneration(knobs: IterativeKnobs, batching: GenBatching, arrivals: readonly GenArrival[], blockMaps = false, cost = GEN_COST): GenRun {
  const { summary, events } = simulateGeneration({ knobs, cost, arrivals, batching, blockMaps });
  const timeline = new TokenTimeline(100_000);
  const stepStart: number[] = [0];
  const stepUs: number[] = [0];
  for (const e of events) {
    timeline.on(e);
    if (e.type === 'step_started') stepStart[e.step] = e.t;
    if (e.type === 'step_finished') stepUs[e.step] = e.durationUs;
  }
  return { summary, cells: timeline.view(), slots: timeline.rows, steps: summary.steps, stepStart, stepUs, completed: summary.completed, sent: arrivals.length, events };
}

/**
 * `count` requests r1, r2, ... arriving as a Poisson stream from t=0, each drawn by `draw` from the
 * seeded stream before its gap (the lessons' arrivals are a function of the seed and the step cost).
 */
export function poissonArrivals(seed: number, count: number, ratePerS: number, draw: (rng: Rng) => Omit<GenRequest, 'id'>): GenArrival[] {
  const rng = new Rng(seed);
  let t = 0;
  return Array.from({ length: count }, (_, i) => {
    const a = { atUs: Math.round(t), request: { id: `r${i + 1}`, ...draw(rng) } };
    t += rng.expGapUs(ratePerS);
    return a;
  });
}

/** A prompt of `n` byte tokens (tiny_lm is byte-level), drawn from the seeded stream. */
export function promptOf(rng: Rng, n: number): number[] {
  return Array.from({ length: n }, () => rng.int(97, 122));
}

/** Inter-token gaps of the given requests, from the run's token events (µs, in time order per request). */
export function tokenGaps(events: readonly IterEvent[], ids: ReadonlySet<string>): { id: string; at: number; gap: number }[] {
  const last = new Map<string, number>();
  const out: { id: string; at: number; gap: number }[] = [];
  for (const e of events) {
    if (e.type !== 'token' || !ids.has(e.id)) continue;
    const prev = last.get(e.id);
    if (prev !== undefined) out.push({ id: e.id, at: e.t, gap: e.t - prev });
    last.set(e.id, e.t);
  }
  return out;
}

/** The KV block map after `step` (a run made with blockMaps), or null. */
export function blockMapAt(events: readonly IterEvent[], step: number): KvBlockMap | null {
  for (const e of events) if (e.type === 'step_finished' && e.step === step) return e.blocks ?? null;
  return null;
}

/** The KV block map after `step` (0: before the first step, the whole budget free: a restart shows that). */
export function blockMapShown(events: readonly IterEvent[], budget: KvBlockAllocatorOptions, step: number): KvBlockMap | null {
  return step < 1 ? new KvBlockAllocator(budget).snapshot() : blockMapAt(events, step);
}

/**
 * Steps each request saw until its first token: the step running when it arrived (if one was) and every
 * step that began after, up to the one that produced its first token. 1: it arrived while the loop was
 * idle and its first step answered it; 2: it joined at the next boundary and that step answered it.
 */
export function firstTokenSteps(events: readonly IterEvent[]): number[] {
  const arrived = new Map<string, number>();
  const firstToken = new Map<string, number>();
  const starts: { t: number; step: number }[] = [];
  for (const e of events) {
    if (e.type === 'seq_queued') arrived.set(e.id, e.t);
    else if (e.type === 'step_started') starts.push({ t: e.t, step: e.step });
    else if (e.type === 'token' && e.index === 0 && !firstToken.has(e.id)) firstToken.set(e.id, e.step);
  }
  return [...firstToken].map(([id, step]) => {
    const t = arrived.get(id)!;
    // the last step begun before the request arrived (one begun at its arrival instant waited for it)
    const running = starts.filter((s) => s.t < t).at(-1);
    return running ? step - running.step + 1 : step - (starts.find((s) => s.t >= t)?.step ?? step) + 1;
  });
}

/** µs per step: the mean of the run's step durations. */
export function meanStepUs(events: readonly IterEvent[]): number {
  const d = events.flatMap((e) => (e.type === 'step_finished' ? [e.durationUs] : []));
  return d.length ? d.reduce((a, b) => a + b, 0) / d.length : 0;
}

/** A cache per lesson: the page asks for the same runs again as its knobs move. */
export function cached<K, V>(make: (key: K) => V): (key: K) => V {
  const memo = new Map<string, V>();
  return (key) => {
    const k = JSON.stringify(key);
    let v = memo.get(k);
    if (v === undefined) memo.set(k, (v = make(key)));
    return v;
  };
}
