/**
 * The request-level baseline: what a dynamic batcher does with whole generations. A batch of up to
 * max_num_sequences waiting requests is formed when the last one ended, its prompts are prefilled in one
 * step, and it decodes until its LONGEST member is done: a member that finished early keeps its slot as
 * padding, and a request that arrives meanwhile waits for the whole batch. Each request is answered when
 * its batch's execution ends (that is when a request-level backend returns), so its first token, like all
 * its tokens, comes then. Memory is reserved for every member's maximum for the batch's whole life (a
 * static batch's tensors are sized up front): the KV budget is drawn as guaranteed_no_evict whatever the
 * knobs' policy, and there is no per-step token budget or chunking, which are iteration-level notions.
 */
import { checkStepTokens, PlannerBase, type Delivered, type PlannedStep, type StepOutputs } from './planner';
import type { GenSequence } from './sequence';
import type { IterativeKnobs, StepRow, StepTokens } from './types';

export class StaticBatchPlanner extends PlannerBase {
  constructor(knobs: IterativeKnobs) {
    super(knobs, 'static batcher', 'guaranteed_no_evict', false);
  }

  plan(): PlannedStep | null {
    const joined: string[] = [];
    if (this.running.length === 0) {
      while (this.waiting.length && this.running.length < this.knobs.maxNumSequences) {
        const s = this.waiting[0]!;
        // its prompt; or, for a sequence taken over from a replaced planner, its whole known text again (a
        // member that had finished in the replaced batch holds its text until this batch ends)
        const n = Math.min(s.uncached, s.maxCacheTokens);
        if (this.allocator.canAdmit(n, s.maxCacheTokens).kind !== 'admit') break;
        this.allocator.admit(s.id, n, s.maxCacheTokens);
        this.running.push(this.waiting.shift()!);
        joined.push(s.id);
      }
      if (this.running.length === 0) return null;
    }
    const rows: StepRow[] = [];
    let padSlots = 0;
    for (const s of this.running) {
      if (s.finished || s.cancelled) {
        padSlots++;
        continue;
      }
      // A member's blocks were drawn for its prompt at admission; a decode grows them one token.
      if (s.cached > 0) this.allocator.grow(s.id, s.uncached);
      rows.push(s.row(s.uncached, this.allocator.sequence(s.id).blocks));
    }
    const tokens = rows.reduce((n, r) => n + r.tokens.length, 0);
    return { batch: { step: ++this.steps, rows, tokens, padSlots }, joined, preempted: [] };
  }

  complete(step: PlannedStep, tokens: StepTokens): StepOutputs {
    const problem = checkStepTokens(step.batch, tokens);
    if (problem) throw new Error(problem);
    step.batch.rows.forEach((row, i) => {
      const s = this.running.find((m) => m.id === row.id)!;
      s.advance(row.tokens.length, tokens[i] ?? null);
    });
    if (!this.running.every((s) => s.finished || s.cancelled)) return { delivered: [], finished: [] };
    // The batch's execution ends: every member is answered now, with all its tokens.
    const done = this.running.filter((s) => !s.cancelled);
    const delivered: Delivered[] = done.flatMap((s) => s.generated.map((token, index) => ({ id: s.id, index, token })));
    for (const s of this.running) this.allocator.release(s.id);
    this.running = [];
    return { delivered, finished: done };
  }

  abort(step: PlannedStep): GenSequence[] {
    void step;
    const failed = this.running.filter((s) => !s.cancelled);
    for (const s of this.running) this.allocator.release(s.id);
    this.running = [];
    return failed;
  }
}
