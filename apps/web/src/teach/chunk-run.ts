/**
 * Lesson 17 "long prompts stall everyone": six sequences decoding when one long prompt arrives, through
 * the continuous planner with enable_chunked_context off and on, at a few max_num_tokens (the knobs).
 * Without chunking the whole prompt is one step's work, and every decoder waits for that step; with it
 * the prompt is fed in chunks of what the token budget leaves beside the decodes. Without chunking a
 * prompt over max_num_tokens is refused at submit (vLLM's rule, core's), and the row says so. Each row is
 * a run of core's simulator (gen-run.ts); the picture is its token timeline.
 */
import type { GenArrival } from '@inferscope/core/iterative';
import { Rng } from '@inferscope/core/load';
import { BASE_KNOBS, cached, decodeStepUs, GEN_COST, GEN_SEED, promptOf, runGeneration, tokenGaps, type GenRun } from './gen-run';

/** the knob: max_num_tokens (256 holds the long prompt and the decodes in one step) */
export const TOKEN_BUDGETS = [32, 64, 256];
/**
 * six decoders (prompts of 8 tokens, 64-token answers) a quarter of a step apart from t=0, the long prompt
 * (200 tokens, 8-token answer) after ten steps of their decoding (steps of six: gen-run.ts decodeStepUs)
 */
export const CHUNK_WORKLOAD = { decoders: 6, decoderPrompt: 8, decoderOutput: 64, longPrompt: 200, longOutput: 8, startEverySteps: 0.25, longAtSteps: 10 } as const;
export const LONG_ID = 'long1';

export function chunkArrivals(seed = GEN_SEED, cost = GEN_COST): GenArrival[] {
  const w = CHUNK_WORKLOAD;
  const rng = new Rng(seed);
  const step = decodeStepUs(w.decoders, cost);
  const decoders = Array.from({ length: w.decoders }, (_, i) => ({ atUs: Math.round(i * w.startEverySteps * step), request: { id: `d${i + 1}`, prompt: promptOf(rng, w.decoderPrompt), maxTokens: w.decoderOutput } }));
  return [...decoders, { atUs: Math.round(w.longAtSteps * step), request: { id: LONG_ID, prompt: promptOf(rng, w.longPrompt), maxTokens: w.longOutput } }];
}

export interface ChunkRow extends GenRun {
  chunked: boolean;
  budget: number;
  /** the long prompt was refused (no chunking, prompt over max_num_tokens) */
  longRefused: boolean;
  /** the decoders' inter-token gaps: longest (the stall), and median */
  decoderGapMaxUs: number;
  decoderGapP50Us: number;
  /** the long prompt's time to first token (NaN when refused) */
  longTtftUs: number;
  /** steps that fed part of the long prompt */
  longPrefillSteps: number;
}

export const runChunk = cached(([chunked, budget]: [boolean, number]): ChunkRow => simulateChunk(chunked, budget));

/** a fresh run (no cache) */
export function simulateChunk(chunked: boolean, budget: number, seed = GEN_SEED, cost = GEN_COST): ChunkRow {
  const arrivals = chunkArrivals(seed, cost);
  const run = runGeneration({ ...BASE_KNOBS, enableChunkedContext: chunked, maxNumTokens: budget }, 'continuous', arrivals, false, cost);
  const decoders = new Set(arrivals.map((a) => a.request.id).filter((id) => id !== LONG_ID));
  const gaps = tokenGaps(run.events, decoders).map((g) => g.gap).sort((a, b) => a - b);
  const queued = run.events.find((e) => e.type === 'seq_queued' && e.id === LONG_ID)?.t;
  const first = run.events.find((e) => e.type === 'token' && e.id === LONG_ID)?.t;
  return {
    ...run, chunked, budget,
    longRefused: run.events.some((e) => e.type === 'seq_rejected' && e.id === LONG_ID),
    decoderGapMaxUs: gaps.at(-1) ?? 0,
    decoderGapP50Us: gaps[Math.floor(gaps.length / 2)] ?? 0,
    longTtftUs: queued !== undefined && first !== undefined ? first - queued : NaN,
    longPrefillSteps: run.cells.filter((c) => c.id === LONG_ID && c.kind === 'prefill').length,
  };
}

export function chunkRows(): ChunkRow[] {
  return [false, true].flatMap((c) => TOKEN_BUDGETS.map((b) => runChunk([c, b])));
}

/**
 * What the verdict says and its claim tests: the stall without chunking (at the largest budget, the only
 * one that takes the prompt whole) against chunking at `budget`, or, where that budget takes the prompt
 * in one step anyway, at the largest budget that does split it.
 */
export function chunkFigures(rows: readonly ChunkRow[], budget: number) {
  const at = (c: boolean, b: number) => rows.find((r) => r.chunked === c && r.budget === b)!;
  const off = at(false, Math.max(...TOKEN_BUDGETS));
  const splitting = rows.filter((r) => r.chunked && r.longPrefillSteps > 1).sort((a, b) => b.budget - a.budget);
  const picked = at(true, budget);
  const on = picked.longPrefillSteps > 1 ? picked : splitting[0] ?? picked;
  return {
    off, on,
    figures: {
      stallOff: off.decoderGapMaxUs, stallOn: on.decoderGapMaxUs, gapP50Off: off.decoderGapP50Us, gapP50On: on.decoderGapP50Us,
      longTtftOff: off.longTtftUs, longTtftOn: on.longTtftUs, chunks: on.longPrefillSteps, onBudget: on.budget,
      refusedOff: rows.filter((r) => !r.chunked && r.longRefused).length,
    },
  };
}
