import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { loadModelConfig } from '@inferscope/core/config';
import { KvBlockAllocator, KvBlockStore, buildKvStep, kvBytesPerBlock, kvShapeFromConfig, planKvCache, storeKvStep, type KvAdmissionPolicy, type KvPreempted } from '@inferscope/core/kv-cache';
import { TINY_LM, TINY_LM_KV_SHAPE } from '../../apps/server/src/model-generator/tiny-lm';
import { Rng } from '@inferscope/core/load';
import { REPO } from './fixtures';

// The committed tiny_lm, decoded greedily on real onnxruntime through the paged KV cache of core
// (allocator + block store + step batches): a sequence's tokens must not depend on what shares its steps.

const bytes = (s: string) => [...new TextEncoder().encode(s)];
let session: Promise<ort.InferenceSession> | undefined;
const model = () => (session ??= ort.InferenceSession.create(readFileSync(join(REPO, 'tiny_lm/1/model.onnx')), { intraOpNumThreads: 1, interOpNumThreads: 1 }));

interface Seq {
  tokens: number[];
  /** tokens whose keys and values are in its blocks */
  cached: number;
  maxTokens: number;
  /** every step's logits for this sequence (the scores its next token was chosen from) */
  logits: Float32Array[];
}

/** A tiny continuous-batching loop: which sequences step together is the test's choice, step by step. */
class Decoder {
  readonly allocator: KvBlockAllocator;
  readonly store: KvBlockStore;
  readonly seqs = new Map<string, Seq>();
  readonly preempted: KvPreempted[] = [];

  constructor(totalBlocks: number, policy: KvAdmissionPolicy = 'max_utilization', readonly blockTokens = 4) {
    this.allocator = new KvBlockAllocator({ totalBlocks, blockTokens, policy });
    this.store = new KvBlockStore(TINY_LM_KV_SHAPE, blockTokens, totalBlocks);
  }

  add(id: string, prompt: number[], newTokens: number): void {
    this.seqs.set(id, { tokens: [...prompt], cached: 0, maxTokens: prompt.length + newTokens, logits: [] });
  }

  /**
   * One model run over the named sequences (each admitted, or grown by its new tokens, first), as a step
   * scheduler would run it: a sequence preempted to make room leaves this step and is recomputed from
   * its tokens when it next steps. Appends each stepped sequence's greedy token.
   */
  async step(wanted: string[]): Promise<void> {
    const ids: string[] = [];
    for (const id of wanted) {
      const s = this.seqs.get(id)!;
      if (!this.allocator.has(id)) {
        // (Re)admitted only when its blocks are there now; otherwise it sits this step out, as queued.
        if (this.allocator.canAdmit(s.tokens.length, s.maxTokens).kind !== 'admit') continue;
        s.cached = 0;
        this.allocator.admit(id, s.tokens.length, s.maxTokens);
        ids.push(id);
        continue;
      }
      const r = this.allocator.grow(id, s.tokens.length - s.cached);
      for (const p of r.preempted) {
        this.preempted.push(p);
        this.seqs.get(p.id)!.cached = 0;
        if (ids.includes(p.id)) ids.splice(ids.indexOf(p.id), 1);
      }
      if (r.grown) ids.push(id);
    }
    if (ids.length === 0) return;
    const rows = ids.map((id) => {
      const s = this.seqs.get(id)!;
      return { table: this.allocator.sequence(id).blocks, cached: s.cached, tokens: s.tokens.slice(s.cached) };
    });
    const step = buildKvStep(this.store, rows);
    const feeds: Record<string, ort.Tensor> = {};
    for (const t of step.inputs) feeds[t.name] = new ort.Tensor(t.type, t.data, t.dims);
    const out = await (await model()).run(feeds);
    const present: Record<string, Float32Array> = {};
    for (const [name, t] of Object.entries(out)) present[name] = t.data as Float32Array;
    storeKvStep(this.store, step, present);
    const logits = out.logits.data as Float32Array;
    ids.forEach((id, b) => {
      const s = this.seqs.get(id)!;
      s.cached = s.tokens.length;
      const row = logits.slice(b * TINY_LM.vocab, (b + 1) * TINY_LM.vocab);
      s.logits.push(row);
      s.tokens.push(argmax(row));
    });
  }

  finish(id: string): void {
    this.allocator.release(id);
  }
}

function argmax(v: Float32Array): number {
  let best = 0;
  for (let i = 1; i < v.length; i++) if (v[i] > v[best]) best = i;
  return best;
}

/** The gap between the best and second-best score: how much rounding the greedy choice could absorb. */
function margin(v: Float32Array): number {
  const sorted = [...v].sort((a, b) => b - a);
  return sorted[0] - sorted[1];
}

const PROMPTS = { a: bytes('Hello, world'), b: bytes('InferScope batches every step'), c: bytes('x'), d: bytes('KV cache') };
const STEPS = 12;

/** Each prompt decoded on its own: one sequence per step, a cache big enough to never preempt. */
async function solo(prompt: number[]): Promise<Seq> {
  const d = new Decoder(64);
  d.add('s', prompt, STEPS);
  for (let i = 0; i < STEPS; i++) await d.step(['s']);
  return d.seqs.get('s')!;
}

function assertSameDecode(name: string, got: Seq, want: Seq): { maxDiff: number; minMargin: number } {
  assert.deepEqual(got.tokens, want.tokens, `${name}: greedy tokens alone and in shared steps`);
  let maxDiff = 0;
  let minMargin = Infinity;
  want.logits.forEach((w, i) => {
    const g = got.logits[got.logits.length - want.logits.length + i];
    for (let k = 0; k < w.length; k++) maxDiff = Math.max(maxDiff, Math.abs(w[k] - g[k]));
    minMargin = Math.min(minMargin, margin(w));
  });
  // Same tokens is not luck: the logits agree to rounding, far inside the smallest winning margin.
  assert.ok(maxDiff < 1e-4, `${name}: logits differ by ${maxDiff}`);
  assert.ok(minMargin > 100 * maxDiff, `${name}: smallest margin ${minMargin} vs difference ${maxDiff}`);
  return { maxDiff, minMargin };
}

test('tiny_lm: greedy tokens are the same alone and in continuous batches of other lengths (joins, leaves, mixed prefill and decode)', async () => {
  const alone = { a: await solo(PROMPTS.a), b: await solo(PROMPTS.b), c: await solo(PROMPTS.c) };
  // The prompts lead to different continuations: a row that read another row's tokens would show.
  assert.notDeepEqual(alone.a.tokens.slice(PROMPTS.a.length), alone.b.tokens.slice(PROMPTS.b.length));

  const d = new Decoder(64);
  d.add('a', PROMPTS.a, STEPS);
  d.add('b', PROMPTS.b, STEPS);
  d.add('c', PROMPTS.c, STEPS);
  await d.step(['a', 'b']); // two prefills of 12 and 29 tokens in one step
  for (let i = 1; i < 4; i++) await d.step(['a', 'b']);
  await d.step(['c', 'a', 'b']); // c's prefill shares a step with two decodes, in another row order
  for (let i = 5; i < 8; i++) await d.step(['b', 'c', 'a']);
  for (let i = 8; i < STEPS; i++) await d.step(['a', 'b', 'c']);
  for (let i = 0; i < 4; i++) await d.step(['c']);
  d.finish('b');
  d.finish('a');
  d.finish('c');
  assert.equal(d.allocator.usage().freeBlocks, 64);
  const figures = Object.fromEntries((['a', 'b', 'c'] as const).map((id) => [id, assertSameDecode(id, d.seqs.get(id)!, alone[id])]));
  console.log('tiny_lm batch invariance (max |logit difference|, smallest top-1 margin):', JSON.stringify(figures));
});

test('tiny_lm: a sequence preempted for its blocks and recomputed from its tokens continues exactly as alone', async () => {
  const alone = { a: await solo(PROMPTS.a), d: await solo(PROMPTS.d) };
  // 8 blocks of 4 tokens: a (12-token prompt, 3 blocks) and d (8 tokens, 2 blocks) fit; growing both
  // soon needs a 9th block, so the newest, d, is preempted and later recomputed from all its tokens.
  const dec = new Decoder(8, 'max_utilization', 4);
  dec.add('a', PROMPTS.a, STEPS);
  dec.add('d', PROMPTS.d, STEPS);
  await dec.step(['a', 'd']);
  let steps = 1;
  while (dec.preempted.length === 0) {
    await dec.step(dec.allocator.has('d') ? ['a', 'd'] : ['a']);
    steps++;
  }
  assert.deepEqual(dec.preempted.map((p) => p.id), ['d'], 'the most recently admitted sequence gives way');
  while (steps++ < STEPS) await dec.step(['a']);
  dec.finish('a');
  const dTokens = dec.seqs.get('d')!.tokens.length - PROMPTS.d.length;
  for (let i = dTokens; i < STEPS; i++) await dec.step(['d']); // the first of these recomputes d's whole cache
  assertSameDecode('a', dec.seqs.get('a')!, alone.a);
  assertSameDecode('d', dec.seqs.get('d')!, alone.d);
});

test('tiny_lm: seeded random continuous batching (joins, random subsets and orders, preemption under a tight budget) never changes a token', async () => {
  const rng = new Rng(52);
  let preemptions = 0;
  let shared = 0;
  for (let round = 0; round < 3; round++) {
    const prompts = Array.from({ length: 6 }, () => Array.from({ length: rng.int(1, 40) }, () => rng.int(0, 255)));
    const alone = await Promise.all(prompts.map((p) => solo(p)));
    const d = new Decoder(rng.int(14, 30), 'max_utilization', 4);
    const joinAt = prompts.map(() => rng.int(0, 10));
    prompts.forEach((p, i) => d.add(`s${i}`, p, STEPS));
    const done = new Set<string>();
    for (let step = 0; done.size < prompts.length; step++) {
      assert.ok(step < 400, 'every sequence finishes');
      const ready = prompts.map((_, i) => `s${i}`).filter((id, i) => joinAt[i] <= step && !done.has(id));
      const chosen = ready.filter(() => rng.next() < 0.8).sort(() => rng.next() - 0.5);
      if (chosen.length === 0) continue;
      const before = d.preempted.length;
      await d.step(chosen);
      preemptions += d.preempted.length - before;
      if (chosen.length > 1) shared++;
      for (const id of chosen) {
        const s = d.seqs.get(id)!;
        if (s.tokens.length === s.maxTokens) {
          d.finish(id);
          done.add(id);
        }
      }
    }
    assert.equal(d.allocator.usage().freeBlocks, d.allocator.totalBlocks);
    prompts.forEach((_, i) => assertSameDecode(`round ${round} s${i}`, d.seqs.get(`s${i}`)!, alone[i]));
  }
  assert.ok(preemptions > 0 && shared > 20, `the runs preempted (${preemptions}) and shared steps (${shared})`);
});

test('tiny_lm: decoding with the cache gives the logits of a full recompute without it', async () => {
  const a = await solo(PROMPTS.a);
  const d = new Decoder(64);
  d.add('full', a.tokens.slice(0, -1), 1);
  await d.step(['full']);
  const full = d.seqs.get('full')!;
  assert.equal(full.tokens.at(-1), a.tokens.at(-1));
  const last = a.logits.at(-1)!;
  const diff = Math.max(...full.logits[0].map((v, k) => Math.abs(v - last[k])));
  assert.ok(diff < 1e-4, `cached vs full recompute differ by ${diff}`);
});

test('tiny_lm: the signature is the step signature of core/kv-cache, and the file stays small', async () => {
  const s = await model();
  const per = (p: string) => Array.from({ length: TINY_LM.layers }, (_, l) => [`${p}_key_${l}`, `${p}_value_${l}`]).flat();
  assert.deepEqual(s.inputNames, ['input_ids', 'position_ids', 'attention_mask', ...per('past')]);
  assert.deepEqual(s.outputNames, ['logits', ...per('present')]);
  assert.ok(readFileSync(join(REPO, 'tiny_lm/1/model.onnx')).length < 2 * 1024 * 1024);
});

test('tiny_lm: its config.pbtxt gives the loader its KV shape (16 KiB per block of 16 tokens) and a plan, or the reason a budget is too small', () => {
  const { config, error } = loadModelConfig(readFileSync(join(REPO, 'tiny_lm/config.pbtxt'), 'utf8'), { modelName: 'tiny_lm', gpuCount: 0 });
  assert.ok(config, String(error?.message));
  const read = kvShapeFromConfig(config);
  assert.deepEqual(read, { shape: TINY_LM_KV_SHAPE });
  assert.equal(kvBytesPerBlock(TINY_LM_KV_SHAPE, 16), 2 * 2 * 4 * 16 * 16 * 4);
  // The loader's plan: a budget that holds one sequence of the model's 256 positions, and one that does not.
  const plan = (budgetBytes: number) => planKvCache({ config, budgetBytes, blockTokens: 16, maxSequenceTokens: TINY_LM.maxPositions });
  assert.deepEqual(plan(1024 * 1024 + 100), { plan: { shape: TINY_LM_KV_SHAPE, blockTokens: 16, bytesPerBlock: 16384, totalBlocks: 64, bytes: 1024 * 1024 } });
  assert.deepEqual(plan(16 * 16384 - 1), {
    problem:
      "model 'tiny_lm': KV cache budget of 15 blocks (245760 bytes) holds 240 tokens, less than one sequence's maximum of 256 tokens (16 blocks of 16 tokens): " +
      'such a sequence could never finish. Give the KV cache at least 16 blocks (262144 bytes) or lower the maximum sequence length',
  });
  assert.match((planKvCache({ config: { name: 'mlp', input: [], output: [] }, budgetBytes: 1e6, blockTokens: 16, maxSequenceTokens: 8 }) as { problem: string }).problem, /^model 'mlp': not a KV-cache step model: input 'input_ids' is missing/);
});
