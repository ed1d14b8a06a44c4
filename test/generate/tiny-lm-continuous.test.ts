// The bundled tiny_lm under core's continuous batching, on real onnxruntime: the iteration-level
// scheduler (@inferscope/core/iterative) forms every step, the server's step executor runs it through the
// paged KV cache. Batch invariance: each prompt's tokens equal its tokens alone, whatever shares its steps,
// under preemption (max_utilization, a tight budget) and chunked prefill; every block is free at the end.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { RealClock } from '@inferscope/core/clock';
import { ContinuousPlanner, StaticBatchPlanner, StepLoop, type GenOutcome, type StepPlanner, type GenRequest, type IterEvent, type IterativeKnobs } from '@inferscope/core/iterative';
import { KvBlockStore } from '@inferscope/core/kv-cache';
import { Rng } from '@inferscope/core/load';
import { OrtStepExecutor, sessionStepModel, type StepModel } from '../../apps/server/src/generate/ort-step-executor';
import { TINY_LM, TINY_LM_KV_SHAPE } from '../../apps/server/src/model-generator/tiny-lm';
import { REPO } from '../backends/fixtures';

let session: Promise<ort.InferenceSession> | undefined;
const model = () => (session ??= ort.InferenceSession.create(readFileSync(join(REPO, 'tiny_lm/1/model.onnx')), { intraOpNumThreads: 1, interOpNumThreads: 1 }));

interface Run {
  outcomes: Map<string, GenOutcome>;
  events: IterEvent[];
  planner: StepPlanner;
  /** the batch dimension of every model call, in order */
  modelBatches: number[];
}

/** Every request through one batcher (continuous unless given) on tiny_lm; requests arrive in waves to mix joins and leaves. */
async function generate(requests: GenRequest[], knobs: IterativeKnobs, wave = requests.length, planner: StepPlanner = new ContinuousPlanner(knobs)): Promise<Run> {
  const clock = new RealClock();
  const store = new KvBlockStore(TINY_LM_KV_SHAPE, knobs.blockTokens, knobs.totalBlocks);
  const session = sessionStepModel(await model(), ort.Tensor);
  const modelBatches: number[] = [];
  const recording: StepModel = { run: (inputs) => (modelBatches.push(inputs[0]!.dims[0]!), session.run(inputs)) };
  const executor = new OrtStepExecutor(store, recording, TINY_LM.vocab);
  const events: IterEvent[] = [];
  const loop = new StepLoop({ clock, planner, executor, listener: (e) => events.push(e) });
  const outcomes = new Map<string, GenOutcome>();
  await new Promise<void>((resolve) => {
    let submitted = 0;
    const submitWave = () => {
      for (const r of requests.slice(submitted, submitted + wave)) {
        loop.submit(r, {
          onEnd: (o) => {
            assert.ok(!outcomes.has(r.id), `${r.id} answered once`);
            outcomes.set(r.id, o);
            if (outcomes.size === requests.length) resolve();
            // The next wave arrives while the first still decodes: it joins at a step boundary.
            else if (outcomes.size % wave === 1 && submitted < requests.length) submitWave();
          },
        });
      }
      submitted += wave;
    };
    submitWave();
  });
  return { outcomes, events, planner, modelBatches };
}

const bytes = (s: string) => [...new TextEncoder().encode(s)];

function requests(seed: number, n: number): GenRequest[] {
  const rng = new Rng(seed);
  const words = ['Hello', 'world', 'InferScope', 'batches', 'every', 'step', 'KV', 'cache', 'tokens', 'x'];
  return Array.from({ length: n }, (_, i) => {
    const text = Array.from({ length: 1 + Math.floor(rng.next() * 6) }, () => words[Math.floor(rng.next() * words.length)]).join(' ');
    return { id: `q${i}`, prompt: bytes(text), maxTokens: 4 + Math.floor(rng.next() * 20), endToken: TINY_LM.endToken };
  });
}

const ALONE: IterativeKnobs = { maxNumSequences: 1, maxNumTokens: 256, enableChunkedContext: false, policy: 'guaranteed_no_evict', totalBlocks: 64, blockTokens: 4 };

test("tiny_lm under the request-level baseline: finished members are computed as pad rows until the batch ends, and tokens are unchanged", { timeout: 60_000 }, async () => {
  const reqs = requests(7, 6).map((r, i) => ({ ...r, maxTokens: [2, 9, 4, 12, 3, 6][i]!, endToken: undefined }));
  const knobs: IterativeKnobs = { maxNumSequences: 4, maxNumTokens: 256, enableChunkedContext: false, policy: 'guaranteed_no_evict', totalBlocks: 64, blockTokens: 4 };
  const run = await generate(reqs, knobs, reqs.length, new StaticBatchPlanner(knobs));
  const steps = run.events.filter((e) => e.type === 'step_started');
  // Each step is one model call (a static batch never mixes prefill and decode), its rows + finished members.
  assert.deepEqual(run.modelBatches, steps.map((s) => s.rows.length + s.padSlots), 'every padded slot was computed');
  assert.ok(steps.some((s) => s.padSlots >= 2), 'members finished early and padded the batch');
  let width = 0;
  for (const s of steps) {
    if (s.joined.length > 0) width = s.joined.length;
    assert.equal(s.rows.length + s.padSlots, width, `step ${s.step}: the batch keeps its width until its longest member ends`);
  }
  for (const r of reqs) {
    const alone = (await generate([r], ALONE)).outcomes.get(r.id);
    assert.deepEqual(run.outcomes.get(r.id), alone, `${r.id}'s tokens equal its tokens alone`);
  }
  assert.equal(run.planner.kvUsage().usedBlocks, 0);
});

test('tiny_lm under continuous batching: every prompt gives its tokens alone, under preemption and chunked prefill', { timeout: 120_000 }, async () => {
  const reqs = requests(52, 14);
  const alone = new Map<string, GenOutcome>();
  // Alone: one sequence in the batcher, each step its own.
  for (const r of reqs) alone.set(r.id, (await generate([r], ALONE)).outcomes.get(r.id)!);
  const configs: [string, IterativeKnobs, number][] = [
    ['max_utilization, tight budget, chunked', { maxNumSequences: 8, maxNumTokens: 12, enableChunkedContext: true, policy: 'max_utilization', totalBlocks: 16, blockTokens: 4 }, 5],
    ['guaranteed_no_evict, whole prompts', { maxNumSequences: 6, maxNumTokens: 256, enableChunkedContext: false, policy: 'guaranteed_no_evict', totalBlocks: 24, blockTokens: 4 }, 4],
  ];
  for (const [name, knobs, wave] of configs) {
    const run = await generate(reqs, knobs, wave);
    for (const r of reqs) assert.deepEqual(run.outcomes.get(r.id), alone.get(r.id), `${name}: ${r.id}'s tokens equal its tokens alone`);
    const steps = run.events.filter((e) => e.type === 'step_started');
    assert.ok(steps.some((s) => s.rows.length >= 3), `${name}: sequences shared steps`);
    assert.ok(steps.some((s) => s.rows.some((x) => x.kind === 'prefill') && s.rows.some((x) => x.kind === 'decode')), `${name}: prefill beside decode`);
    assert.equal(run.planner.kvUsage().usedBlocks, 0, `${name}: every block free at the end`);
    if (knobs.policy === 'max_utilization') {
      assert.ok(run.events.some((e) => e.type === 'seq_preempted'), `${name}: the budget forced preemptions`);
      assert.ok(steps.every((s) => s.tokens <= knobs.maxNumTokens), `${name}: steps within max_num_tokens`);
    } else assert.ok(!run.events.some((e) => e.type === 'seq_preempted'));
  }
  // The reference is not vacuous: every prompt generated tokens, and different prompts different texts.
  const texts = [...alone.values()].map((o) => (assert.ok(o.ok && o.tokens.length > 0), JSON.stringify(o.tokens)));
  assert.ok(new Set(texts).size > reqs.length / 2);
});
