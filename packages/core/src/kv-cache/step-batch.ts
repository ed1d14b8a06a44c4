/**
 * One step of a batch of sequences on a generative model with a KV cache: the tensors to feed it, built
 * from each sequence's blocks, and the cache written back from what it returns. The tensor names are the
 * step signature the bundled tiny_lm is built with (apps/server model-generator/tiny-lm.ts), declared
 * here once so the model, the scheduler and the tests cannot drift apart.
 *
 * Rows of different lengths share one step by padding, which the model masks out (attention_mask 0):
 * - the past is padded at its END: a row's cached tokens are slots 0..cached-1 of [batch, heads, P, hd],
 *   P being the longest cache in the step;
 * - the new tokens are padded at their START: a row's n new tokens are the last n of S, so the model's
 *   `logits` (at the last position) are each row's next-token scores.
 * Only each row's real new keys and values are copied back into its blocks: a sequence's cache never
 * holds padding, so what it holds does not depend on the batches it happened to share.
 *
 * `padRows` appends rows that belong to no sequence: a request-level batch's finished members, which a
 * request-level backend still computes (its batch tensor is fixed until the longest member ends). Each
 * feeds one pad token over a past of P masked slots, so it costs what a real row of the step costs; its
 * outputs are never stored or sampled.
 */
import type { KvBlockStore } from './block-store';

export const KV_STEP_TENSORS = {
  inputIds: 'input_ids',
  positionIds: 'position_ids',
  attentionMask: 'attention_mask',
  logits: 'logits',
  pastKey: (layer: number) => `past_key_${layer}`,
  pastValue: (layer: number) => `past_value_${layer}`,
  presentKey: (layer: number) => `present_key_${layer}`,
  presentValue: (layer: number) => `present_value_${layer}`,
} as const;

export interface KvStepRow {
  /** the sequence's block table (covering cached + tokens.length tokens before storeKvStep) */
  table: readonly number[];
  /** tokens already in its cache */
  cached: number;
  /** the new token ids of this step: the prompt (or what is left of it), or one generated token */
  tokens: readonly number[];
}

export interface KvStepTensor {
  name: string;
  type: 'int64' | 'float32';
  dims: number[];
  data: BigInt64Array | Float32Array;
}

export interface KvStep {
  rows: readonly KvStepRow[];
  /** rows in the tensors: the real rows, then the pad rows */
  batch: number;
  /** P: the longest cache among the rows */
  pastLen: number;
  /** S: the most new tokens among the rows */
  newLen: number;
  inputs: KvStepTensor[];
}

/** The token a pad row feeds (its output is discarded, so any id in the vocabulary does). */
export const KV_PAD_TOKEN = 0;

export function buildKvStep(store: KvBlockStore, rows: readonly KvStepRow[], padRows = 0): KvStep {
  if (rows.length === 0) throw new RangeError('KV step: no rows');
  if (!Number.isInteger(padRows) || padRows < 0) throw new RangeError(`KV step: padRows must be a whole number >= 0, not ${padRows}`);
  const { layers, kvHeads, headDim } = store.shape;
  const B = rows.length + padRows;
  const P = Math.max(...rows.map((r) => r.cached));
  const S = Math.max(...rows.map((r) => r.tokens.length));
  const ids = new BigInt64Array(B * S);
  const positions = new BigInt64Array(B * S);
  const mask = new BigInt64Array(B * (P + S));
  rows.forEach((r, b) => {
    if (r.tokens.length === 0) throw new RangeError(`KV step: row ${b} has no new token`);
    // Checked before the model runs: the allocator must have grown the table to hold this step's tokens.
    if (r.table.length * store.blockTokens < r.cached + r.tokens.length) {
      throw new RangeError(`KV step: row ${b}'s ${r.table.length} blocks hold ${r.table.length * store.blockTokens} tokens, fewer than its ${r.cached} cached + ${r.tokens.length} new`);
    }
    const pad = S - r.tokens.length;
    r.tokens.forEach((t, j) => {
      ids[b * S + pad + j] = BigInt(t);
      positions[b * S + pad + j] = BigInt(r.cached + j);
    });
    mask.fill(1n, b * (P + S), b * (P + S) + r.cached);
    mask.fill(1n, b * (P + S) + P + pad, (b + 1) * (P + S));
  });
  // A pad row attends to its own token only (a row with every position masked would divide by zero).
  for (let b = rows.length; b < B; b++) {
    ids[(b + 1) * S - 1] = BigInt(KV_PAD_TOKEN);
    mask[(b + 1) * (P + S) - 1] = 1n;
  }
  const inputs: KvStepTensor[] = [
    { name: KV_STEP_TENSORS.inputIds, type: 'int64', dims: [B, S], data: ids },
    { name: KV_STEP_TENSORS.positionIds, type: 'int64', dims: [B, S], data: positions },
    { name: KV_STEP_TENSORS.attentionMask, type: 'int64', dims: [B, P + S], data: mask },
  ];
  for (let l = 0; l < layers; l++) {
    for (const kind of ['key', 'value'] as const) {
      const data = new Float32Array(B * kvHeads * P * headDim);
      rows.forEach((r, b) => store.gather(r.table, r.cached, l, kind, data, P, b));
      const name = kind === 'key' ? KV_STEP_TENSORS.pastKey(l) : KV_STEP_TENSORS.pastValue(l);
      inputs.push({ name, type: 'float32', dims: [B, kvHeads, P, headDim], data });
    }
  }
  return { rows, batch: B, pastLen: P, newLen: S, inputs };
}

/**
 * Copies each row's new keys and values from the step's present tensors ([batch, heads, P + S, hd], by
 * name) into its blocks, after its cached tokens. The caller then counts them as cached.
 */
export function storeKvStep(store: KvBlockStore, step: KvStep, present: Readonly<Record<string, Float32Array>>): void {
  const total = step.pastLen + step.newLen;
  for (let l = 0; l < store.shape.layers; l++) {
    for (const kind of ['key', 'value'] as const) {
      const name = kind === 'key' ? KV_STEP_TENSORS.presentKey(l) : KV_STEP_TENSORS.presentValue(l);
      const src = present[name];
      if (!src || src.length !== step.batch * store.shape.kvHeads * total * store.shape.headDim) {
        throw new RangeError(`KV step: ${name} is missing or not [${step.batch}, ${store.shape.kvHeads}, ${total}, ${store.shape.headDim}]`);
      }
      step.rows.forEach((r, b) => {
        const n = r.tokens.length;
        store.scatter(r.table, r.cached, l, kind, src, total, b, total - n, n);
      });
    }
  }
}
