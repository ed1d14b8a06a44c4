/**
 * The simulator's step executor: a step takes the step cost model's time on the clock, and a stand-in
 * language model whose state lives in the paged KV cache, so the simulation checks the scheduler the way
 * the real model would. Each token slot of a block holds the running hash of the sequence's text up to
 * that token (what a real model's keys and values summarise); a step reads a row's last cached slot
 * through its block table, writes its new tokens' slots, and samples the next token from the hash. A
 * sequence's tokens are therefore a function of its text alone (batch invariance), a recomputed sequence
 * continues with the tokens it would have produced, and a block handed to two sequences at once, or a
 * row whose table or cached count is wrong, changes the tokens (or is refused) instead of passing unseen.
 */
import type { Clock } from '../clock/clock';
import { stepModelCalls } from './model-calls';
import type { StepBatch, StepExecutor, StepTokens } from './types';

/**
 * A step's cost, all µs: fixed + per sequence (slot, padding included) + per new token, and, where a table
 * has them, per model call beyond the step's first (a step with decode and prefill rows makes two,
 * `stepModelCalls`) and per padded context slot (each call's tensor rows x its padded length: past and
 * new; the attention and the past keys and values a call moves grow with it).
 */
export interface StepCost {
  fixed_us: number;
  per_sequence_us: number;
  per_token_us: number;
  per_extra_call_us?: number;
  per_context_us?: number;
}

/** What a step's cost is charged on, from its rows (the features `fitStepCost` fits). */
export interface StepShape {
  slots: number;
  tokens: number;
  extraCalls: number;
  contextSlots: number;
}

export function stepShapeOf(batch: Pick<StepBatch, 'rows' | 'tokens' | 'padSlots'>): StepShape {
  const calls = stepModelCalls(batch);
  return {
    slots: batch.rows.length + batch.padSlots,
    tokens: batch.tokens + batch.padSlots,
    extraCalls: Math.max(0, calls.length - 1),
    contextSlots: calls.reduce((n, c) => n + c.width * c.length, 0),
  };
}

export function stepShapeCostUs(cost: StepCost, s: StepShape): number {
  return cost.fixed_us + cost.per_sequence_us * s.slots + cost.per_token_us * s.tokens + (cost.per_extra_call_us ?? 0) * s.extraCalls + (cost.per_context_us ?? 0) * s.contextSlots;
}

/** µs a step takes; a padded slot costs a sequence and its one dummy token. */
export function stepCostUs(cost: StepCost, batch: Pick<StepBatch, 'rows' | 'tokens' | 'padSlots'>): number {
  return stepShapeCostUs(cost, stepShapeOf(batch));
}

const SEED = 0x9e3779b9;

/** The stand-in model's state after reading `token` in state `h` (a 32-bit mix). */
function mix(h: number, token: number): number {
  let x = (h ^ Math.imul(token + 1, 0x85ebca6b)) >>> 0;
  x = Math.imul(x ^ (x >>> 16), 0x7feb352d) >>> 0;
  return (x ^ (x >>> 15)) >>> 0;
}

function sample(h: number, vocab: number): number {
  return h % vocab;
}

/** The stand-in model run alone, without a cache: the reference every batched run must equal. */
export function simGenerateAlone(prompt: readonly number[], maxTokens: number, vocab = 256, endToken?: number): number[] {
  let h = SEED;
  for (const t of prompt) h = mix(h, t);
  const out: number[] = [];
  while (out.length < maxTokens) {
    const t = sample(h, vocab);
    if (t === endToken) break;
    out.push(t);
    h = mix(h, t);
  }
  return out;
}

export class SimStepExecutor implements StepExecutor {
  /** one slot per cached token of every block: the text's hash up to it */
  private readonly slots: Uint32Array;

  constructor(
    private readonly clock: Clock,
    private readonly cost: StepCost,
    private readonly cache: { totalBlocks: number; blockTokens: number },
    private readonly vocab = 256,
  ) {
    this.slots = new Uint32Array(cache.totalBlocks * cache.blockTokens);
  }

  runStep(batch: StepBatch, done: (error: unknown, tokens?: StepTokens) => void): void {
    let tokens: StepTokens;
    try {
      tokens = batch.rows.map((r) => this.runRow(r.table, r.cached, r.tokens, r.samples));
    } catch (e) {
      done(e);
      return;
    }
    this.clock.setTimer(this.clock.now() + stepCostUs(this.cost, batch), () => done(null, tokens));
  }

  private runRow(table: readonly number[], cached: number, tokens: readonly number[], samples: boolean): number | null {
    const bt = this.cache.blockTokens;
    if (table.length * bt < cached + tokens.length) throw new RangeError(`a row's ${table.length} blocks cannot hold ${cached + tokens.length} tokens`);
    let h = cached === 0 ? SEED : this.slots[this.slot(table, cached - 1)]!;
    for (let j = 0; j < tokens.length; j++) {
      h = mix(h, tokens[j]!);
      this.slots[this.slot(table, cached + j)] = h;
    }
    return samples ? sample(h, this.vocab) : null;
  }

  /** where the row's `i`th token sits in the cache (a method, not a closure per row: ARCHITECTURE.md, hot paths) */
  private slot(table: readonly number[], i: number): number {
    const bt = this.cache.blockTokens;
    const b = table[Math.floor(i / bt)]!;
    if (!Number.isSafeInteger(b) || b < 0 || b >= this.cache.totalBlocks) throw new RangeError(`block ${b} is outside the KV cache`);
    return b * bt + (i % bt);
  }
}
