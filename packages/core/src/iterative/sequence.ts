/**
 * One generative sequence as the step planners see it, and the checks a request passes before it may
 * wait for a slot.
 *
 * A sequence's *known* text is its prompt followed by the tokens generated so far; `cached` of them are in
 * its KV cache. Every step feeds the model the next known tokens that are not cached, and the model's
 * next token is wanted once all of them are: a prompt's prefill (whole, or chunk by chunk), a decode (the
 * last generated token, the only one not cached) and the recompute of a preempted sequence (its cache
 * was dropped, so its whole known text is fed again) are one rule, and a recomputed sequence continues
 * with exactly the tokens it would have produced.
 */
import { KV_ADMISSION_POLICIES, kvBudgetProblem } from '../kv-cache/index';
import type { GenRequest, IterativeKnobs, StepRow } from './types';

export class GenSequence {
  readonly id: string;
  readonly prompt: readonly number[];
  readonly maxTokens: number;
  readonly endToken: number | undefined;
  readonly generated: number[] = [];
  /** it sampled its end token */
  stopped = false;
  /** known tokens held in its KV cache */
  cached = 0;
  preemptions = 0;
  /** admission order (the planner's count when it last admitted it) */
  admittedAt = -1;
  /** cancelled while running: its blocks are freed at the next step boundary, its tokens dropped */
  cancelled = false;

  constructor(r: GenRequest) {
    this.id = r.id;
    this.prompt = r.prompt;
    this.maxTokens = r.maxTokens;
    this.endToken = r.endToken;
  }

  /** prompt + generated */
  get knownLength(): number {
    return this.prompt.length + this.generated.length;
  }

  /** Known tokens not in the cache yet: what the model must read before it samples again. */
  get uncached(): number {
    return this.knownLength - this.cached;
  }

  /**
   * The most tokens its cache ever holds: the last generated token is sampled and never fed back, so
   * prompt + max_tokens - 1.
   */
  get maxCacheTokens(): number {
    return this.prompt.length + this.maxTokens - 1;
  }

  get finished(): boolean {
    return this.stopped || this.generated.length >= this.maxTokens;
  }

  known(from: number, to: number): number[] {
    const out: number[] = [];
    for (let i = from; i < to; i++) out.push(i < this.prompt.length ? this.prompt[i]! : this.generated[i - this.prompt.length]!);
    return out;
  }

  /** Its row in a step that feeds its next `n` uncached tokens, its blocks being `table`. */
  row(n: number, table: readonly number[]): StepRow {
    const decode = this.generated.length > 0 && this.uncached === 1;
    return {
      id: this.id,
      kind: decode ? 'decode' : 'prefill',
      table,
      cached: this.cached,
      tokens: this.known(this.cached, this.cached + n),
      samples: this.cached + n === this.knownLength,
    };
  }

  /** After a step fed it `n` tokens and sampled `token` (null: the row did not sample). True: a token to deliver. */
  advance(n: number, token: number | null): boolean {
    this.cached += n;
    if (token === null) return false;
    if (token === this.endToken) {
      this.stopped = true;
      return false;
    }
    this.generated.push(token);
    return true;
  }

  /** Its cache was dropped (preemption): it is recomputed from its known text when readmitted. */
  dropCache(): void {
    this.cached = 0;
    this.preemptions++;
  }
}

/**
 * Why a request can never be served under these knobs, or null. `needsWholeText`: a planner without
 * chunked prefill that may recompute it (max_utilization) must fit its whole text, not only its prompt,
 * in one step's token budget (vLLM refuses max_num_batched_tokens below max_model_len for the same reason).
 */
export function genRequestProblem(r: GenRequest, knobs: IterativeKnobs, tokenBudget: boolean): string | null {
  if (typeof r.id !== 'string' || r.id === '') return 'a generate request needs a non-empty id';
  if (!Array.isArray(r.prompt) || r.prompt.length === 0) return `request ${r.id}: the prompt needs at least one token`;
  const bad = r.prompt.findIndex((t) => !Number.isSafeInteger(t) || t < 0);
  if (bad >= 0) return `request ${r.id}: prompt token ${bad} is ${String(r.prompt[bad])}, not a token id (an integer >= 0)`;
  if (!Number.isSafeInteger(r.maxTokens) || r.maxTokens < 1) return `request ${r.id}: max_tokens must be an integer >= 1, got ${String(r.maxTokens)}`;
  if (r.endToken !== undefined && !(Number.isSafeInteger(r.endToken) && r.endToken >= 0)) return `request ${r.id}: end_id must be a token id (an integer >= 0), got ${String(r.endToken)}`;
  const maxCache = r.prompt.length + r.maxTokens - 1;
  const kv = kvBudgetProblem({ totalBlocks: knobs.totalBlocks, blockTokens: knobs.blockTokens, maxSequenceTokens: maxCache });
  if (kv) return `request ${r.id}: ${kv}`;
  if (tokenBudget && !knobs.enableChunkedContext) {
    const whole = knobs.policy === 'max_utilization' ? maxCache : r.prompt.length;
    if (whole > knobs.maxNumTokens) {
      const what = knobs.policy === 'max_utilization' ? `its prompt + max_tokens - 1 (${whole} tokens, what a preempted sequence recomputes)` : `its prompt of ${whole} tokens`;
      return `request ${r.id}: ${what} exceeds max_num_tokens ${knobs.maxNumTokens} and enable_chunked_context is off: turn chunked context on or raise max_num_tokens`;
    }
  }
  return null;
}

/** Every problem with a set of knobs, worded with their config names; empty when they are usable. */
export function knobProblems(k: IterativeKnobs): string[] {
  const out: string[] = [];
  const ints: [string, number][] = [
    ['max_num_sequences', k.maxNumSequences],
    ['max_num_tokens', k.maxNumTokens],
    ['KV cache blocks', k.totalBlocks],
    ['tokens_per_block', k.blockTokens],
  ];
  for (const [name, v] of ints) if (!Number.isSafeInteger(v) || v < 1) out.push(`${name} must be an integer >= 1, got ${String(v)}`);
  if (typeof k.enableChunkedContext !== 'boolean') out.push(`enable_chunked_context must be true or false, got ${String(k.enableChunkedContext)}`);
  if (!KV_ADMISSION_POLICIES.includes(k.policy)) out.push(`batch_scheduler_policy must be one of ${KV_ADMISSION_POLICIES.join(', ')}, got ${String(k.policy)}`);
  return out;
}
