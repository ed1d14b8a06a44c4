/**
 * The server's step executor for a generative model with a paged KV cache (the bundled tiny_lm): one
 * step of core's iteration-level scheduler (@inferscope/core/iterative) becomes one model run. The step's
 * rows are kv-cache's KvStepRows as they are, so `buildKvStep` gathers each row's blocks into the past
 * tensors, the model runs, `storeKvStep` writes each row's real new keys and values back into its blocks,
 * and each sampling row takes its greedy (argmax) next token from `logits`.
 *
 * Greedy on purpose: the token is a function of the row's own text, so a prompt's tokens do not depend on
 * what shares its steps (batch invariance, the property the tests check through the real model).
 * The model is reached through `StepModel`, so the same executor runs where its loop runs: beside the
 * session in the instance's worker thread (the server, step-host.ts), on the main thread over the
 * backend's executor (instance-step-model.ts, where the backend cannot host the loop), or on a session
 * of its own (the tests, the bench's replay).
 */
import type * as ort from 'onnxruntime-node';
import { stepModelCalls, type StepBatch, type StepExecutor, type StepTokens } from '@inferscope/core/iterative';
import { KV_STEP_TENSORS, buildKvStep, storeKvStep, type KvBlockStore, type KvStep, type KvStepTensor } from '@inferscope/core/kv-cache';

type StepOutputs = Record<string, Float32Array>;

/**
 * Runs the model on one step's inputs: every output's data by name, at once (a session in the thread that
 * runs the loop: the instance's worker, the bench's replay) or as a promise (a session in another thread).
 */
export interface StepModel {
  run(inputs: readonly KvStepTensor[]): StepOutputs | Promise<StepOutputs>;
}

/** A StepModel on an onnxruntime session in this thread (its public, asynchronous API). */
export function sessionStepModel(session: ort.InferenceSession, Tensor: typeof ort.Tensor): StepModel {
  return {
    async run(inputs) {
      const feeds: Record<string, ort.Tensor> = {};
      for (const t of inputs) feeds[t.name] = new Tensor(t.type, t.data, t.dims);
      const out = await session.run(feeds);
      const data: StepOutputs = {};
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
   * The step runs as core's `stepModelCalls` groups it (decode rows and prefill rows in separate calls).
   * With a model that answers at once, the calls run one after the other and `done` is called before
   * this returns: no promise is involved, so a loop that never yields to its event loop (the instance's
   * worker thread) can run it. With a model that answers later, both calls are posted at once, so the
   * second call's hand-off overlaps the first's compute (their rows are other sequences, their blocks
   * other blocks), and the step answers once both have settled, so a failed call never leaves the other
   * storing into blocks the planner has already freed.
   * A request-level batch's finished members (`batch.padSlots`) are computed as pad rows of the first
   * call, as a request-level backend's fixed batch tensor computes them until its longest member ends;
   * their outputs are discarded. Skipping them would make the baseline cheaper than the backend it stands for.
   */
  runStep(batch: StepBatch, done: (error: unknown, tokens?: StepTokens) => void): void {
    const tokens: (number | null)[] = new Array(batch.rows.length).fill(null);
    const later: Promise<void>[] = [];
    let failure: { reason: unknown } | null = null;
    for (const call of stepModelCalls(batch)) {
      try {
        const step = buildKvStep(this.store, call.rows.map((i) => batch.rows[i]!), call.padRows);
        const out = this.model.run(step.inputs);
        if (out instanceof Promise) later.push(out.then((o) => this.take(batch, call.rows, step, o, tokens)));
        else this.take(batch, call.rows, step, out, tokens);
      } catch (e) {
        failure = { reason: e };
        break;
      }
    }
    if (later.length === 0) return answerStep(done, failure, tokens);
    void Promise.allSettled(later).then((settled) => {
      const rejected = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      answerStep(done, failure ?? (rejected ? { reason: rejected.reason } : null), tokens);
    });
  }

  /** Stores a call's new keys and values into its rows' blocks and takes each sampling row's token. */
  private take(batch: StepBatch, rows: readonly number[], step: KvStep, out: StepOutputs, tokens: (number | null)[]): void {
    storeKvStep(this.store, step, out);
    const logits = out[KV_STEP_TENSORS.logits];
    if (!logits || logits.length !== step.batch * this.vocab) {
      throw new RangeError(`the model's ${KV_STEP_TENSORS.logits} is missing or not [${step.batch}, ${this.vocab}]`);
    }
    rows.forEach((i, b) => (tokens[i] = batch.rows[i]!.samples ? argmax(logits, b * this.vocab, this.vocab) : null));
  }
}

/** Index of the largest of `n` scores from `from` (the first on a tie). */
function argmax(v: Float32Array, from: number, n: number): number {
  let best = 0;
  for (let i = 1; i < n; i++) if (v[from + i]! > v[from + best]!) best = i;
  return best;
}

/** A step's one answer: its first failure, or its tokens. */
function answerStep(done: Parameters<StepExecutor['runStep']>[1], failure: { reason: unknown } | null, tokens: StepTokens): void {
  if (failure) done(failure.reason ?? new Error('the model run failed'));
  else done(null, tokens);
}
