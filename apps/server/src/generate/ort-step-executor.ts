/**
 * The server's step executor for a generative model with a paged KV cache (the bundled tiny_lm): one
 * step of core's iteration-level scheduler (@inferscope/core/iterative) becomes one model run. The step's
 * rows are kv-cache's KvStepRows as they are, so `buildKvStep` gathers each row's blocks into the past
 * tensors, the model runs, `storeKvStep` writes each row's real new keys and values back into its blocks,
 * and each sampling row takes its greedy (argmax) next token from `logits`.
 *
 * Greedy on purpose: the token is a function of the row's own text, so a prompt's tokens do not depend on
 * what shares its steps (batch invariance, the property the tests check through the real model).
 * The model is reached through `StepModel`, so the same executor runs a session in this thread (tests)
 * or on a backend's worker thread (the server, once the scheduler seam can host it).
 */
import type * as ort from 'onnxruntime-node';
import { stepModelCalls, type StepBatch, type StepExecutor, type StepTokens } from '@inferscope/core/iterative';
import { KV_STEP_TENSORS, buildKvStep, storeKvStep, type KvBlockStore, type KvStepTensor } from '@inferscope/core/kv-cache';

/** Runs the model on one step's inputs; resolves with every output's data by name. */
export interface StepModel {
  run(inputs: readonly KvStepTensor[]): Promise<Record<string, Float32Array>>;
}

/** A StepModel on an onnxruntime session in this thread. */
export function sessionStepModel(session: ort.InferenceSession, Tensor: typeof ort.Tensor): StepModel {
  return {
    async run(inputs) {
      const feeds: Record<string, ort.Tensor> = {};
      for (const t of inputs) feeds[t.name] = new Tensor(t.type, t.data, t.dims);
      const out = await session.run(feeds);
      const data: Record<string, Float32Array> = {};
      for (const [name, t] of Object.entries(out)) data[name] = t.data as Float32Array;
      return data;
    },
  };
}

export class OrtStepExecutor implements StepExecutor {
  constructor(
    private readonly store: KvBlockStore,
    private readonly model: StepModel,
    private readonly vocab: number,
  ) {}

  /**
   * The step runs as core's `stepModelCalls` groups it (decode rows and prefill rows in separate calls),
   * both posted at once: the worker runs them back to back, so the second call's hand-off to the worker
   * and back overlaps the first's compute instead of following it (its rows are other sequences, their
   * blocks other blocks). The step answers once both have settled, so a failed call never leaves the
   * other storing into blocks the planner has already freed.
   * A request-level batch's finished members (`batch.padSlots`) are computed as pad rows of the first
   * call, as a request-level backend's fixed batch tensor computes them until its longest member ends;
   * their outputs are discarded. Skipping them would make the baseline cheaper than the backend it stands for.
   */
  runStep(batch: StepBatch, done: (error: unknown, tokens?: StepTokens) => void): void {
    const tokens: (number | null)[] = new Array(batch.rows.length).fill(null);
    const runGroup = async (rows: number[], padRows: number) => {
      const step = buildKvStep(this.store, rows.map((i) => batch.rows[i]!), padRows);
      const out = await this.model.run(step.inputs);
      storeKvStep(this.store, step, out);
      const logits = out[KV_STEP_TENSORS.logits];
      if (!logits || logits.length !== step.batch * this.vocab) {
        throw new RangeError(`the model's ${KV_STEP_TENSORS.logits} is missing or not [${step.batch}, ${this.vocab}]`);
      }
      rows.forEach((i, b) => (tokens[i] = batch.rows[i]!.samples ? argmax(logits, b * this.vocab, this.vocab) : null));
    };
    Promise.allSettled(stepModelCalls(batch).map((call) => runGroup(call.rows, call.padRows))).then((settled) => {
      const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed) done(failed.reason ?? new Error('the model run failed'));
      else done(null, tokens);
    });
  }
}

/** Index of the largest of `n` scores from `from` (the first on a tie). */
function argmax(v: Float32Array, from: number, n: number): number {
  let best = 0;
  for (let i = 1; i < n; i++) if (v[from + i]! > v[from + best]!) best = i;
  return best;
}
