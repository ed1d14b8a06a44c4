// The generate bench's limit (bench/generate/replay.ts) rebuilds the server's step batches from its events
// alone: each row's cached count, new tokens and block table length must be what the planner handed the
// executor, under preemption (recompute) and chunked prefill too, and the rebuilt steps must run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { VirtualClock } from '@inferscope/core/clock';
import { ContinuousPlanner, SimStepExecutor, StaticBatchPlanner, StepLoop, type IterEvent, type IterativeKnobs, type StepBatch, type StepPlanner } from '@inferscope/core/iterative';
import { Rng } from '@inferscope/core/load';
import { rebuildBatches, recordedSteps } from '../../bench/generate/replay';

const COST = { fixed_us: 500, per_sequence_us: 40, per_token_us: 5 };

function run(knobs: IterativeKnobs, planner: StepPlanner): { handed: StepBatch[]; events: IterEvent[] } {
  const clock = new VirtualClock(0);
  const sim = new SimStepExecutor(clock, COST, knobs);
  const handed: StepBatch[] = [];
  const events: IterEvent[] = [];
  const loop = new StepLoop({ clock, planner, listener: (e) => events.push(e), executor: { runStep: (b, done) => (handed.push(structuredClone(b)), sim.runStep(b, done)) } });
  const rng = new Rng(4);
  for (let i = 0; i < 30; i++) {
    const at = i * 3000;
    const request = { id: `r${i}`, prompt: Array.from({ length: rng.int(2, 14) }, () => rng.int(0, 255)), maxTokens: rng.int(1, 24) };
    clock.setTimer(at, () => loop.submit(request, { onEnd: () => undefined }));
  }
  clock.runUntilIdle();
  return { handed, events };
}

const CASES: [string, IterativeKnobs, 'continuous' | 'static'][] = [
  ['continuous, preempting, chunked', { maxNumSequences: 6, maxNumTokens: 10, enableChunkedContext: true, policy: 'max_utilization', totalBlocks: 14, blockTokens: 4 }, 'continuous'],
  ['request-level, padded', { maxNumSequences: 5, maxNumTokens: 256, enableChunkedContext: false, policy: 'guaranteed_no_evict', totalBlocks: 64, blockTokens: 4 }, 'static'],
];

for (const [name, knobs, batching] of CASES) {
  test(`replay rebuilds the steps the planner formed: ${name}`, () => {
    const { handed, events } = run(knobs, batching === 'continuous' ? new ContinuousPlanner(knobs) : new StaticBatchPlanner(knobs));
    const steps = recordedSteps(events);
    const { batches, totalBlocks } = rebuildBatches(steps, knobs.blockTokens);
    const shape = (b: StepBatch) => ({ padSlots: b.padSlots, tokens: b.tokens, rows: b.rows.map((r) => [r.id, r.kind, r.cached, r.tokens.length, Math.ceil((r.cached + r.tokens.length) / knobs.blockTokens)]) });
    assert.deepEqual(batches.map(shape), handed.filter((b) => b.rows.length > 0).map(shape));
    batches.forEach((b) => b.rows.forEach((r) => assert.ok(r.table.length * knobs.blockTokens >= r.cached + r.tokens.length)));
    if (batching === 'continuous') assert.ok(events.some((e) => e.type === 'seq_preempted'), 'the trace preempts');
    else assert.ok(batches.some((b) => b.padSlots > 0), 'the trace pads');
    // the rebuilt steps run on an executor with their blocks, every table inside the pool and never shared
    const clock = new VirtualClock(0);
    const sim = new SimStepExecutor(clock, COST, { totalBlocks, blockTokens: knobs.blockTokens });
    for (const b of batches) sim.runStep(b, (e) => assert.equal(e, null));
    clock.runUntilIdle();
    for (const b of batches) {
      const blocks = b.rows.flatMap((r) => r.table);
      assert.equal(new Set(blocks).size, blocks.length, `step ${b.step}: no block in two rows`);
    }
    assert.ok(steps.every((s) => s.cycleUs >= s.servedUs), 'a step cycle holds its execution');
  });
}
