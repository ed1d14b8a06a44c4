/**
 * What the step loop (step-loop.ts) asks of a batching policy: the continuous planner (continuous.ts)
 * and the request-level baseline (static-batch.ts) both answer it, so the same loop, executor and
 * figures run both on the same traffic and the difference is measured, not asserted.
 */
import type { KvUsage } from '../kv-cache/index';
import type { GenSequence } from './sequence';
import type { StepBatch, StepTokens } from './types';

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
