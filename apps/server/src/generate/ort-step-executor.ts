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
import type { StepBatch, StepExecutor, StepTokens } from '@inferscope/core/iterative';
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
   * Decode rows (one new token each) and prefill rows (a prompt or a chunk of it) run as two model calls
   * when a step has both: one padded tensor would pad every decode row to the longest prompt's length
   * (rows are padded to a common new-token count), so a sequence joining would multiply the step's work.
   * Rows are independent sequences, so the two calls give the tokens one call would.
   *
   * A request-level batch's finished members (`batch.padSlots`) are computed as pad rows of the first call
   * (the decode call: a fixed batch pads during decoding), as a request-level backend's fixed batch tensor
   * computes them until its longest member ends; their outputs are discarded. Skipping them would make the
   * baseline cheaper than the backend it stands for.
   */
  runStep(batch: StepBatch, done: (error: unknown, tokens?: StepTokens) => void): void {
    const tokens: (number | null)[] = new Array(batch.rows.length).fill(null);
    const groups = [batch.rows.flatMap((r, i) => (r.kind === 'decode' ? [i] : [])), batch.rows.flatMap((r, i) => (r.kind === 'decode' ? [] : [i]))].filter((g) => g.length > 0);
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
    (async () => {
      for (const [i, g] of groups.entries()) await runGroup(g, i === 0 ? batch.padSlots : 0);
    })().then(
      () => done(null, tokens),
      (e: unknown) => done(e ?? new Error('the model run failed')),
    );
  }
}

/** Index of the largest of `n` scores from `from` (the first on a tie). */
function argmax(v: Float32Array, from: number, n: number): number {
  let best = 0;
  for (let i = 1; i < n; i++) if (v[from + i]! > v[from + best]!) best = i;
  return best;
}
