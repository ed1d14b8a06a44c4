/**
 * The iteration-level planner (Orca's iteration-level scheduling; vLLM's continuous batching;
 * TensorRT-LLM's in-flight batching). At every step boundary:
 *
 * 1. sequences cancelled since the last step leave, and their blocks are freed;
 * 2. running sequences, oldest first, are given their next tokens (one decode token, or the next chunk of
 *    a prompt being prefilled in chunks) while the step's token budget (max_num_tokens) and its
 *    sequences (max_num_sequences) last; each grows its block table for them. Under max_utilization a
 *    sequence that needs a block when none is free preempts the most recently admitted sequences (vLLM's
 *    recompute preemption): their blocks are freed and they go back to the head of the queue, oldest
 *    first, to be recomputed later. Under guaranteed_no_evict growth never fails (its maximum was
 *    reserved at admission);
 * 3. unless someone was just preempted (vLLM's rule: memory is short, do not admit into it), waiting
 *    sequences are admitted in arrival order while slots, budget and blocks allow; the head that does not
 *    fit blocks the ones behind it (first come, first served, as both engines do). Without chunked
 *    context a prompt joins only whole; with it, the budget left is its first chunk, so a long prompt is
 *    spread over steps and never stalls the decodes beside it.
 *
 * Finished sequences retire after the step that produced their last token. Pure: no clock, no executor.
 */
import { checkStepTokens, PlannerBase, type PlannedStep, type StepOutputs } from './planner';
import type { GenSequence } from './sequence';
import type { IterativeKnobs, StepRow, StepTokens } from './types';

/** The knobs that may change between steps without rebuilding the KV cache. */
export type LiveKnobs = Pick<IterativeKnobs, 'maxNumSequences' | 'maxNumTokens' | 'enableChunkedContext'>;
const LIVE_KNOBS: readonly (keyof LiveKnobs)[] = ['maxNumSequences', 'maxNumTokens', 'enableChunkedContext'];

export class ContinuousPlanner extends PlannerBase {
  private admissions = 0;

  constructor(knobs: IterativeKnobs) {
    super(knobs, 'iterative scheduler', knobs.policy, true);
  }

  /**
   * Changes the step knobs; they apply from the next boundary and lose no sequence. Turning chunked
   * context off leaves a prompt already being chunked to finish in chunks. Throws on bad values, on a
   * knob that sizes the KV cache (policy, blocks): those need a new planner, and on a change that a
   * sequence already accepted could not be served under.
   */
  setKnobs(change: Partial<LiveKnobs>): void {
    const other = Object.keys(change).filter((k) => !LIVE_KNOBS.includes(k as keyof LiveKnobs));
    if (other.length) throw new RangeError(`${this.who}: ${other.join(', ')} cannot change live (only ${LIVE_KNOBS.join(', ')})`);
    const next = { ...this.knobs, ...change };
    this.checkKnobs(next);
    // A change that would strand a sequence already accepted (a waiting prompt, or a running sequence's
    // recompute under max_utilization, that no longer fits one step without chunking) is refused: it
    // would wait at the head of the queue forever, and everyone behind it.
    const mayWait = next.policy === 'max_utilization' ? [...this.waiting, ...this.running] : this.waiting;
    for (const s of mayWait) {
      const problem = this.problemOf(s, next);
      if (problem) throw new RangeError(`${this.who}: this change would leave a sequence unservable: ${problem}`);
    }
    this.knobs = next;
  }

  get currentKnobs(): Readonly<IterativeKnobs> {
    return this.knobs;
  }

  plan(): PlannedStep | null {
    for (const s of this.running) if (s.cancelled) this.allocator.release(s.id);
    this.running = this.running.filter((s) => !s.cancelled);
    const k = this.knobs;
    let budget = k.maxNumTokens;
    const rows: StepRow[] = [];
    const preempted: GenSequence[] = [];
    for (let i = 0; i < this.running.length && rows.length < k.maxNumSequences && budget > 0; i++) {
      const s = this.running[i]!;
      const n = Math.min(s.uncached, budget);
      const grown = this.allocator.grow(s.id, n);
      if (grown.preempted.length) {
        const gone = new Set(grown.preempted.map((p) => p.id));
        // Victims are the newest, so they sit after i (or at i when s gave way): none is in `rows` yet.
        for (const p of grown.preempted) preempted.push(this.running.find((v) => v.id === p.id)!);
        this.running = this.running.filter((v) => !gone.has(v.id));
      }
      if (!grown.grown) break;
      rows.push(s.row(n, this.allocator.sequence(s.id).blocks));
      budget -= n;
    }
    // Back at the head of the queue in admission order, ahead of everyone who waits.
    for (const v of preempted) v.dropCache();
    this.waiting.unshift(...[...preempted].sort((a, b) => a.admittedAt - b.admittedAt));
    const joined: string[] = [];
    while (!preempted.length && this.waiting.length && this.running.length < k.maxNumSequences && budget > 0) {
      const s = this.waiting[0]!;
      if (!k.enableChunkedContext && s.uncached > budget) break;
      const n = Math.min(s.uncached, budget);
      if (this.allocator.canAdmit(n, s.maxCacheTokens).kind !== 'admit') break;
      this.allocator.admit(s.id, n, s.maxCacheTokens);
      s.admittedAt = this.admissions++;
      this.waiting.shift();
      this.running.push(s);
      rows.push(s.row(n, this.allocator.sequence(s.id).blocks));
      joined.push(s.id);
      budget -= n;
    }
    if (rows.length === 0) {
      // Every knob is >= 1 and every queued sequence fits the budget alone, so an empty step with work
      // left would be an accounting bug: say so rather than spin.
      if (this.busy) throw new Error(`iterative scheduler: no step could be formed with ${this.waiting.length} waiting and ${this.running.length} running`);
      return null;
    }
    const tokens = rows.reduce((n, r) => n + r.tokens.length, 0);
    return { batch: { step: ++this.steps, rows, tokens, padSlots: 0 }, joined, preempted };
  }

  complete(step: PlannedStep, tokens: StepTokens): StepOutputs {
    const problem = checkStepTokens(step.batch, tokens);
    if (problem) throw new Error(problem);
    const out: StepOutputs = { delivered: [], finished: [] };
    step.batch.rows.forEach((row, i) => {
      const s = this.running.find((r) => r.id === row.id);
      if (!s || s.cancelled) return; // cancelled during the step: its blocks go at the next boundary
      if (s.advance(row.tokens.length, tokens[i] ?? null)) out.delivered.push({ id: s.id, index: s.generated.length - 1, token: s.generated[s.generated.length - 1]! });
      if (s.finished) out.finished.push(s);
    });
    for (const s of out.finished) this.allocator.release(s.id);
    this.running = this.running.filter((s) => !s.finished);
    return out;
  }

  abort(step: PlannedStep): GenSequence[] {
    const ids = new Set(step.batch.rows.map((r) => r.id));
    const failed = this.running.filter((s) => ids.has(s.id));
    for (const s of failed) this.allocator.release(s.id);
    this.running = this.running.filter((s) => !ids.has(s.id));
    return failed.filter((s) => !s.cancelled);
  }
}
