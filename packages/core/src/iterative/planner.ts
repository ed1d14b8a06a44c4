/**
 * What the step loop (step-loop.ts) asks of a batching policy: the continuous planner (continuous.ts)
 * and the request-level baseline (static-batch.ts) both answer it, so the same loop, executor and
 * figures run both on the same traffic and the difference is measured, not asserted.
 */
import { KvBlockAllocator, type KvAdmissionPolicy, type KvBlockMap, type KvBlockTables, type KvUsage } from '../kv-cache/index';
import { genRequestProblem, knobProblems, type GenSequence } from './sequence';
import type { IterativeKnobs, StepBatch, StepTokens } from './types';

export interface PlannedStep {
  batch: StepBatch;
  /** sequences that joined at this boundary (first admission or readmission after a preemption) */
  joined: string[];
  /** sequences preempted at this boundary, newest first (their cache dropped, back at the head of the queue) */
  preempted: GenSequence[];
}

/** A token delivered to its request. */
export interface Delivered {
  id: string;
  index: number;
  token: number;
}

export interface StepOutputs {
  delivered: Delivered[];
  /** retired after their last token: their blocks are free */
  finished: GenSequence[];
}

export interface StepPlanner {
  /** null: it waits for a slot; otherwise why it can never be served (nothing was taken) */
  enqueue(s: GenSequence): string | null;
  /**
   * The next step at a boundary, or null when nothing waits or runs. A step may have no rows (a
   * request-level batch whose last running members were cancelled): the loop completes it without
   * running the executor.
   */
  plan(): PlannedStep | null;
  /** The step ran and sampled `tokens` (one per row). */
  complete(step: PlannedStep, tokens: StepTokens): StepOutputs;
  /** The step failed: its sequences leave (blocks freed) and are returned to be answered with the error. */
  abort(step: PlannedStep): GenSequence[];
  /** A waiting sequence leaves now (true); a running one is marked and freed at the next boundary. */
  cancel(id: string): 'waiting' | 'running' | null;
  has(id: string): boolean;
  readonly busy: boolean;
  kvUsage(): KvUsage;
  /** each block's owner and fill, for the KV block map */
  blockMap(): KvBlockMap;
  /** the same without the per-block list (blockMapOf derives it), to send elsewhere */
  blockTables(): KvBlockTables;
  /** Gives up every live sequence at a boundary, for a planner that takes over (see PlannerBase.takeOver). */
  handOver(): HandOver;
  /** its admitted (oldest first) and waiting sequences, read-only */
  live(): { running: readonly GenSequence[]; waiting: readonly GenSequence[] };
}

/** What a planner hands the one that replaces it at a step boundary. */
export interface HandOver {
  /** the new queue: the admitted sequences, oldest first, their caches dropped (recomputes), then the waiting ones in order */
  queue: GenSequence[];
  /** the admitted ones among them: recomputed when readmitted */
  recomputed: GenSequence[];
  /** steps formed so far: the numbering carries on */
  steps: number;
}

/** Checks that an executor answered one token per row, a token id exactly where the row samples. */
export function checkStepTokens(batch: StepBatch, tokens: StepTokens | undefined): string | null {
  if (!Array.isArray(tokens) || tokens.length !== batch.rows.length) {
    return `step ${batch.step}: the executor returned ${Array.isArray(tokens) ? tokens.length : 'no'} tokens for ${batch.rows.length} rows`;
  }
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    const row = batch.rows[i]!;
    if (row.samples ? !(Number.isSafeInteger(t) && (t as number) >= 0) : t !== null) {
      return `step ${batch.step}: row ${i} (${row.id}) ${row.samples ? 'needs a token id' : 'samples nothing'}, got ${String(t)}`;
    }
  }
  return null;
}

/**
 * What both planners share: the FIFO of waiting sequences, the admitted ones (`running`: the continuous
 * planner's running set, the request-level batch's members), the block allocator and the checks at submit.
 */
export abstract class PlannerBase implements StepPlanner {
  protected readonly allocator: KvBlockAllocator;
  protected knobs: IterativeKnobs;
  protected waiting: GenSequence[] = [];
  /** admitted, oldest first */
  protected running: GenSequence[] = [];
  protected steps = 0;

  constructor(
    knobs: IterativeKnobs,
    protected readonly who: string,
    policy: KvAdmissionPolicy,
    /** whether a step's token budget (max_num_tokens) applies: not to a request-level batch */
    private readonly tokenBudget: boolean,
  ) {
    this.knobs = { ...knobs };
    this.checkKnobs(this.knobs);
    this.allocator = new KvBlockAllocator({ totalBlocks: knobs.totalBlocks, blockTokens: knobs.blockTokens, policy });
  }

  get busy(): boolean {
    return this.waiting.length > 0 || this.running.length > 0;
  }

  /** Sequences waiting and admitted (oldest first), for views and tests. */
  get queues(): { waiting: string[]; running: string[] } {
    return { waiting: this.waiting.map((s) => s.id), running: this.running.map((s) => s.id) };
  }

  has(id: string): boolean {
    return this.waiting.some((s) => s.id === id) || this.running.some((s) => s.id === id);
  }

  enqueue(s: GenSequence): string | null {
    const problem = this.problemOf(s, this.knobs);
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
    const r = this.running.find((s) => s.id === id);
    if (!r || r.cancelled) return null;
    r.cancelled = true; // its blocks are freed at the next boundary (a static batch's when the batch ends)
    return 'running';
  }

  kvUsage(): KvUsage {
    return this.allocator.usage();
  }

  /** The block map (owner and fill of every block), for the dashboard. */
  blockMap(): KvBlockMap {
    return this.allocator.snapshot();
  }

  blockTables(): KvBlockTables {
    return this.allocator.tables();
  }

  handOver(): HandOver {
    // A sequence cancelled while running was answered already: its blocks go with this planner.
    const recomputed = this.running.filter((s) => !s.cancelled).sort((a, b) => a.admittedAt - b.admittedAt);
    for (const s of recomputed) s.dropCache();
    const out = { queue: [...recomputed, ...this.waiting], recomputed, steps: this.steps };
    this.running = [];
    this.waiting = [];
    return out;
  }

  /**
   * Why this planner could not take over `from`'s sequences, or null. The admitted ones come back as
   * recomputes (their whole text fed again), so they are judged as max_utilization judges a request: their
   * prompt + max_tokens - 1 must fit one step without chunked context, and the KV budget.
   */
  takeOverProblem(from: StepPlanner): string | null {
    const { running, waiting } = from.live();
    const recompute: IterativeKnobs = { ...this.knobs, policy: 'max_utilization' };
    for (const [list, k] of [[running, recompute], [waiting, this.knobs]] as const) {
      for (const s of list) {
        const problem = s.cancelled ? null : this.problemOf(s, k);
        if (problem) return `${this.who}: this change would leave a sequence unservable: ${problem}`;
      }
    }
    return null;
  }

  live(): { running: readonly GenSequence[]; waiting: readonly GenSequence[] } {
    return { running: this.running, waiting: this.waiting };
  }

  /**
   * Takes over another planner's sequences at a step boundary (a live change of the policy or the KV
   * budget, which size the block allocator): its admitted ones at the head of the queue as recomputes,
   * oldest first (vLLM's recompute preemption: each resumes with the tokens it would have produced), then
   * its waiting ones in their order, ahead of anyone this planner already holds. Nothing is lost: every
   * sequence is in exactly one queue.
   */
  takeOver(from: HandOver): void {
    this.waiting.unshift(...from.queue);
    this.steps = Math.max(this.steps, from.steps);
  }

  /** Why `s` can never be served under knobs `k`, or null. */
  protected problemOf(s: GenSequence, k: IterativeKnobs): string | null {
    return genRequestProblem({ id: s.id, prompt: s.prompt, maxTokens: s.maxTokens, endToken: s.endToken }, k, this.tokenBudget);
  }

  protected checkKnobs(k: IterativeKnobs): void {
    const problems = knobProblems(k);
    if (problems.length) throw new RangeError(`${this.who}: ${problems.join('; ')}`);
  }

  abstract plan(): PlannedStep | null;
  abstract complete(step: PlannedStep, tokens: StepTokens): StepOutputs;
  abstract abort(step: PlannedStep): GenSequence[];
}
