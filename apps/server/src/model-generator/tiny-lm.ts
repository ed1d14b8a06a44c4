/**
 * tiny_lm: a small decoder-only transformer (GPT-2's shape, shrunk) with a KV cache, built from seeded
 * weights so the project can show generative serving without downloading anything. Byte-level
 * vocabulary (the 256 byte values plus an end token), so no tokenizer is needed: a prompt's UTF-8 bytes
 * are its token ids. Its text means nothing; it is deterministic and checkable.
 *
 * One ONNX run is one step of a batch of sequences. Per row:
 *   input_ids       [batch, sequence]        INT64  the new tokens (a prompt, or the one token of a decode step)
 *   position_ids    [batch, sequence]        INT64  their positions in the row's own sequence
 *   attention_mask  [batch, past + sequence] INT64  1 = a real token, 0 = padding (past keys, then new ones)
 *   past_key_<l>, past_value_<l>  [batch, heads, past, head_dim] FP32  the cache (past may be 0)
 * ->
 *   logits          [batch, vocab]           FP32  at the LAST new position of each row
 *   present_key_<l>, present_value_<l>  [batch, heads, past + sequence, head_dim]  past ++ new
 *
 * How rows of different lengths share a batch (and why one row never sees another): padding is marked 0
 * in attention_mask, and a query attends to key k only if the mask says k is real and k is not later than
 * the query (causal, by index: past + j for new token j). So a row's past may be padded at its end (real
 * entries first) and its new tokens padded at their start (so the last position is real and `logits`
 * are its next-token scores). Every other operation is row-wise, so a row's numbers depend only on its own
 * real tokens, up to rounding: onnxruntime's kernels may sum in another order for another batch shape
 * (measured: logits within ~1e-5), which is why the weights are scaled so the greedy winner leads by far
 * more. test/backends/tiny-lm.test.ts checks it on onnxruntime: greedy tokens alone, in mixed batches and
 * after preemption are identical, the smallest winning margin is over 100x the largest logit difference,
 * and cached decoding matches a full recompute.
 */
import { KV_STEP_TENSORS as N, type KvModelShape } from '@inferscope/core/kv-cache';
import { GraphBuilder } from './onnx-builder';
import { Prng } from './prng';

export const TINY_LM = {
  /** byte values 0..255, then END */
  vocab: 257,
  endToken: 256,
  layers: 2,
  dModel: 64,
  heads: 4,
  headDim: 16,
  ffn: 256,
  /** learned positions: a sequence holds at most this many tokens */
  maxPositions: 256,
} as const;

/** What its KV cache holds per token, for kvBytesPerBlock and the block store. */
export const TINY_LM_KV_SHAPE: KvModelShape = { layers: TINY_LM.layers, kvHeads: TINY_LM.heads, headDim: TINY_LM.headDim, bytesPerElement: 4 };

/** Masked attention scores: exp(-1e9 - max) is exactly 0 in float32, and never NaN (unlike -Infinity when a padded query sees no key). */
const MASKED = -1e9;

export function buildTinyLm(seed: number): Uint8Array {
  const { vocab, layers, dModel: D, heads: H, headDim: HD, ffn, maxPositions } = TINY_LM;
  const rng = new Prng(seed);
  const g = new GraphBuilder('tiny_lm');
  const ids = g.input(N.inputIds, 'int64', ['batch', 'sequence']);
  const posIn = g.input(N.positionIds, 'int64', ['batch', 'sequence']);
  const maskIn = g.input(N.attentionMask, 'int64', ['batch', 'total_sequence']);
  const pastIn = Array.from({ length: layers }, (_, l) => ({
    key: g.input(N.pastKey(l), 'float32', ['batch', H, 'past_sequence', HD]),
    value: g.input(N.pastValue(l), 'float32', ['batch', H, 'past_sequence', HD]),
  }));

  const scalar = (name: string, v: number) => g.weight(name, [], Float32Array.of(v));
  const ints = (v: number[]) => g.node('Constant', [], { value_ints: v });
  const int = (v: number) => g.node('Constant', [], { value_int: v });
  // Embedding std 0.5: the tied output head gives logits of std ~4, so the top token wins by a margin far
  // above float rounding, and greedy decoding is stable to the summation order of any kernel.
  const tokEmb = g.weight('tok_emb', [vocab, D], rng.normals(vocab * D, 0.5));
  const posEmb = g.weight('pos_emb', [maxPositions, D], rng.normals(maxPositions * D, 0.5));
  const layerNorm = (name: string, x: string) =>
    g.node('LayerNormalization', [x, g.weight(`${name}.gamma`, [D], new Float32Array(D).fill(1)), g.weight(`${name}.beta`, [D], new Float32Array(D))], { axis: -1, epsilon: 1e-5 });
  const linear = (name: string, x: string, fanIn: number, fanOut: number) =>
    g.node('Add', [
      g.node('MatMul', [x, g.weight(`${name}.weight`, [fanIn, fanOut], rng.normals(fanIn * fanOut, Math.sqrt(1 / fanIn)))]),
      g.weight(`${name}.bias`, [fanOut], rng.normals(fanOut, 0.02)),
    ]);

  // The step's inputs are checked by nodes named after the rule they enforce: onnxruntime quotes a failing
  // node's name, so a malformed step is refused saying what was wrong instead of computed wrongly (a mask
  // shorter than past + new would broadcast over every key; a negative id would wrap to the last row).
  const zero = int(0);
  const one = int(1);
  const batchDim = g.node('Shape', [ids], { start: 0, end: 1 });
  const newDim = g.node('Shape', [ids], { start: 1, end: 2 }); // [S]
  const pastDim = g.node('Shape', [pastIn[0].key], { start: 2, end: 3 }); // [P]
  const totalDim = g.node('Add', [pastDim, newDim]); // [P + S]
  const notADim = int(-2);
  /** t itself when its shape is `expected`; otherwise a Reshape to a dimension of -2, which fails. */
  const requireShape = (t: string, expected: string, rule: string) =>
    g.node('Reshape', [t, g.node('Where', [g.node('Equal', [g.node('Shape', [t]), expected]), expected, notADim])], { allowzero: 1 }, undefined, `check: ${rule}`);
  const mask = requireShape(maskIn, g.node('Concat', [batchDim, totalDim], { axis: 0 }), `${N.attentionMask} is [batch, past + new]`);
  const pos = requireShape(posIn, g.node('Shape', [ids]), `${N.positionIds} is shaped as ${N.inputIds}`);
  const pastShape = g.node('Concat', [batchDim, ints([H]), pastDim, ints([HD])], { axis: 0 });
  const past = pastIn.map((p, l) => ({
    key: requireShape(p.key, pastShape, `${N.pastKey(l)} is [batch, ${H}, past, ${HD}] (past as in ${N.pastKey(0)})`),
    value: requireShape(p.value, pastShape, `${N.pastValue(l)} is [batch, ${H}, past, ${HD}] (past as in ${N.pastKey(0)})`),
  }));
  /** Gather wraps negative indices; mapped past the end, they fail like any index out of range. */
  const lookup = (table: string, idx: string, size: number, rule: string) =>
    g.node('Gather', [table, g.node('Where', [g.node('Less', [idx, zero]), int(size), idx])], { axis: 0 }, undefined, `check: ${rule}`);
  let x = g.node('Add', [
    lookup(tokEmb, ids, vocab, `${N.inputIds} are 0..${vocab - 1}`),
    lookup(posEmb, pos, maxPositions, `${N.positionIds} are 0..${maxPositions - 1}`),
  ]); // [B,S,D]

  // allowed[b, 0, j, k] = mask[b, k] == 1 and k <= past + j: the one attention mask, shared by every layer.
  const newLen = g.node('Squeeze', [newDim]); // S
  const totalLen = g.node('Squeeze', [totalDim]); // P + S
  const queryIndex = g.node('Add', [g.node('Range', [zero, newLen, one]), g.node('Sub', [totalLen, newLen])]); // [S]
  const keyIndex = g.node('Range', [zero, totalLen, one]); // [P+S]
  const causal = g.node('LessOrEqual', [g.node('Unsqueeze', [keyIndex, ints([0])]), g.node('Unsqueeze', [queryIndex, ints([1])])]); // [S, P+S]
  const realKey = g.node('Cast', [g.node('Unsqueeze', [mask, ints([1, 2])])], { to: 9 /* BOOL */ }); // [B,1,1,P+S]
  const allowed = g.node('And', [causal, realKey]); // [B,1,S,P+S]
  const masked = scalar('masked_score', MASKED);
  const scale = scalar('attention_scale', 1 / Math.sqrt(HD));
  const headsShape = ints([0, 0, H, HD]);
  const modelShape = ints([0, 0, D]);
  const toHeads = (t: string) => g.node('Transpose', [g.node('Reshape', [t, headsShape])], { perm: [0, 2, 1, 3] }); // [B,H,S,HD]

  for (let l = 0; l < layers; l++) {
    const h = layerNorm(`layer${l}.ln1`, x);
    const q = toHeads(linear(`layer${l}.q`, h, D, D));
    const k = g.node('Concat', [past[l].key, toHeads(linear(`layer${l}.k`, h, D, D))], { axis: 2 }, N.presentKey(l));
    const v = g.node('Concat', [past[l].value, toHeads(linear(`layer${l}.v`, h, D, D))], { axis: 2 }, N.presentValue(l));
    const scores = g.node('Mul', [g.node('MatMul', [q, g.node('Transpose', [k], { perm: [0, 1, 3, 2] })]), scale]); // [B,H,S,P+S]
    const probs = g.node('Softmax', [g.node('Where', [allowed, scores, masked])], { axis: -1 });
    const context = g.node('Reshape', [g.node('Transpose', [g.node('MatMul', [probs, v])], { perm: [0, 2, 1, 3] }), modelShape]); // [B,S,D]
    x = g.node('Add', [x, linear(`layer${l}.out`, context, D, D)]);
    const up = linear(`layer${l}.ffn_up`, layerNorm(`layer${l}.ln2`, x), D, ffn);
    // GELU, written out (the Gelu operator arrived in opset 20): x * 0.5 * (1 + erf(x / sqrt 2))
    const erf = g.node('Erf', [g.node('Mul', [up, scalar(`layer${l}.inv_sqrt2`, Math.SQRT1_2)])]);
    const gelu = g.node('Mul', [g.node('Mul', [up, scalar(`layer${l}.half`, 0.5)]), g.node('Add', [erf, scalar(`layer${l}.one`, 1)])]);
    x = g.node('Add', [x, linear(`layer${l}.ffn_down`, gelu, ffn, D)]);
  }

  const last = g.node('Gather', [layerNorm('final_ln', x), int(-1)], { axis: 1 }); // [B,D]: each row's last new token
  g.node('Gemm', [last, tokEmb], { transB: 1 }, N.logits); // the output head shares the token embedding (GPT-2's tying)
  g.output(N.logits, 'float32', ['batch', vocab]);
  for (let l = 0; l < layers; l++) {
    g.output(N.presentKey(l), 'float32', ['batch', H, 'total_sequence', HD]);
    g.output(N.presentValue(l), 'float32', ['batch', H, 'total_sequence', HD]);
  }
  return g.encode(`tiny_lm seed ${seed}: ${layers}-layer decoder-only transformer, d_model ${D}, ${H} heads, byte vocabulary + END, KV cache in/out, generated by inferscope`);
}
