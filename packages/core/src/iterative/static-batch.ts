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
import { KvBlockAllocator, type KvUsage } from '../kv-cache/index';
import { checkStepTokens, type Delivered, type PlannedStep, type StepOutputs, type StepPlanner } from './planner';
import { genRequestProblem, knobProblems, type GenSequence } from './sequence';
import type { IterativeKnobs, StepRow, StepTokens } from './types';

export class StaticBatchPlanner implements StepPlanner {
  private readonly allocator: KvBlockAllocator;
  private readonly knobs: IterativeKnobs;
  private waiting: GenSequence[] = [];
  /** the batch in execution, its members in their slots until it ends */
  private batch: GenSequence[] = [];
  private steps = 0;

  constructor(knobs: IterativeKnobs) {
    const problems = knobProblems(knobs);
    if (problems.length) throw new RangeError(`static batcher: ${problems.join('; ')}`);
    this.knobs = { ...knobs };
    this.allocator = new KvBlockAllocator({ totalBlocks: knobs.totalBlocks, blockTokens: knobs.blockTokens, policy: 'guaranteed_no_evict' });
  }

  get busy(): boolean {
    return this.waiting.length > 0 || this.batch.length > 0;
  }

  has(id: string): boolean {
    return this.waiting.some((s) => s.id === id) || this.batch.some((s) => s.id === id);
  }

  enqueue(s: GenSequence): string | null {
    const problem = genRequestProblem({ id: s.id, prompt: s.prompt, maxTokens: s.maxTokens }, this.knobs, false);
    if (problem) return problem;
    if (this.has(s.id)) return `request ${s.id}: a sequence with this id is already being generated`;
    this.waiting.push(s);
    return null;
  }

  cancel(id: string): 'waiting' | 'running' | null {
    const w = this.waiting.findIndex((s) => s.id === id);
    if (w >= 0) {
      this.waiting.splice(w, 1);
      return 'waiting';
    }
    const r = this.batch.find((s) => s.id === id);
    if (!r || r.cancelled) return null;
    r.cancelled = true; // it pads the batch until the batch ends, like a finished member
    return 'running';
  }

  kvUsage(): KvUsage {
    return this.allocator.usage();
  }

  plan(): PlannedStep | null {
    const joined: string[] = [];
    if (this.batch.length === 0) {
      while (this.waiting.length && this.batch.length < this.knobs.maxNumSequences) {
        const s = this.waiting[0]!;
        if (this.allocator.canAdmit(s.prompt.length, s.maxCacheTokens).kind !== 'admit') break;
        this.allocator.admit(s.id, s.prompt.length, s.maxCacheTokens);
        this.batch.push(this.waiting.shift()!);
        joined.push(s.id);
      }
      if (this.batch.length === 0) return null;
    }
    const rows: StepRow[] = [];
    let padSlots = 0;
    for (const s of this.batch) {
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
      const s = this.batch.find((m) => m.id === row.id)!;
      s.advance(row.tokens.length, tokens[i] ?? null);
    });
    if (!this.batch.every((s) => s.finished || s.cancelled)) return { delivered: [], finished: [] };
    // The batch's execution ends: every member is answered now, with all its tokens.
    const done = this.batch.filter((s) => !s.cancelled);
    const delivered: Delivered[] = done.flatMap((s) => s.generated.map((token, index) => ({ id: s.id, index, token })));
    for (const s of this.batch) this.allocator.release(s.id);
    this.batch = [];
    return { delivered, finished: done };
  }

  abort(step: PlannedStep): GenSequence[] {
    void step;
    const failed = this.batch.filter((s) => !s.cancelled);
    for (const s of this.batch) this.allocator.release(s.id);
    this.batch = [];
    return failed;
  }
}
