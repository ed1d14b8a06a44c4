// The scheduler's per-request work makes no named closure (test/support/named-closures.ts says why that
// costs): requests through the dynamic batcher (preferred sizes, a delay, queued payloads lent to busy
// instances and taken back, merges), the sequence batcher and the continuous batcher's step loop, on the
// virtual clock. A first round warms every path up (one-time closures: a scheduler's own callbacks,
// lazily built tables); a second, equal round must name nothing.
import { namedSoFar } from '../support/named-closures';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Harness, PrefetchExecutor } from './helpers';
import { SeqHarness } from './sequence/helpers';
import { seqConfig } from './sequence/config';
import { VirtualClock } from '@inferscope/core/clock';
import { ContinuousPlanner } from '@inferscope/core/iterative/continuous.ts';
import { SimStepExecutor } from '@inferscope/core/iterative/sim-step.ts';
import { StepLoop } from '@inferscope/core/iterative/step-loop.ts';
import type { IterativeKnobs } from '@inferscope/core/iterative';

async function dynamicRound(h: Harness, exec: PrefetchExecutor, round: number): Promise<void> {
  for (let burst = 0; burst < 20; burst++) {
    for (let i = 0; i < 13; i++) h.send(`r${round}-${burst}-${i}`);
    h.clock.advance(700);
    while (exec.running.length > 2) exec.finish();
    h.clock.advance(1500);
  }
  while (exec.running.length > 0 || h.sched.snapshot().queue_depth.total > 0) {
    if (exec.running.length > 0) exec.finish();
    h.clock.advance(3000);
  }
}

test('the dynamic batcher names no closure per request: bursts through preferred sizes, a delay, two busy instances with queued payloads', async () => {
  const exec = new PrefetchExecutor();
  const h = new Harness({ max_batch_size: 16, dynamic_batching: { preferred_batch_size: [4, 8], max_queue_delay_microseconds: 2000 }, instance_group: [{ count: 2, kind: 'KIND_CPU' }] }, exec);
  await h.start();
  await dynamicRound(h, exec, 0);
  const before = namedSoFar();
  await dynamicRound(h, exec, 1);
  assert.equal(namedSoFar() - before, 0, 'functions named while 260 requests went through');
  assert.ok(exec.reclaimed.length + h.of('batch.formed').length > 40, 'the round formed batches');
  assert.equal(h.answerOrder.length, 520);
});

/** 6 sequences of 5 requests, interleaved, on 4 slots (two wait in the backlog), and a malformed request; until all are answered. */
function sequenceRound(h: SeqHarness, round: number): void {
  for (let step = 0; step < 5; step++) {
    for (let k = 0; k < 6; k++) h.send(BigInt(round * 100 + k + 1), step === 0 ? 'start' : step === 4 ? 'end' : '', step);
    h.clock.advance(500);
    h.exec.drain();
    h.clock.advance(500);
  }
  h.send(BigInt(round * 100 + 99), '', 1); // refused: no START for an unknown id
  // the backlogged sequences take the slots the others left
  for (let i = 0; i < 50 && h.answers.size < (round + 1) * 31; i++) {
    h.clock.advance(500);
    h.exec.drain();
  }
}

for (const strategy of ['direct', 'oldest'] as const) {
  test(`the sequence batcher (${strategy}) names no closure per request: sequences through slots and the backlog, and a refusal`, async () => {
    const h = new SeqHarness(seqConfig({ sb: strategy === 'oldest' ? { oldest: { max_candidate_sequences: 4, max_queue_delay_microseconds: 300 } } : { direct: { max_queue_delay_microseconds: 300 } } }));
    await h.start();
    sequenceRound(h, 0);
    const before = namedSoFar();
    sequenceRound(h, 1);
    assert.equal(namedSoFar() - before, 0, 'functions named while 31 requests went through');
    assert.equal(h.answers.size, 62);
    assert.equal(h.inferenceCount(), 60);
  });
}

test('the continuous batcher\'s step loop names no closure per step or token: sequences joining, finishing and preempted', () => {
  const clock = new VirtualClock(0);
  const knobs: IterativeKnobs = { maxNumSequences: 4, maxNumTokens: 64, enableChunkedContext: true, policy: 'max_utilization', totalBlocks: 12, blockTokens: 4 };
  const loop = new StepLoop({ clock, planner: new ContinuousPlanner(knobs), executor: new SimStepExecutor(clock, { fixed_us: 1000, per_sequence_us: 100, per_token_us: 10 }, knobs), listener: () => {} });
  let ended = 0;
  const sink = { onEnd: () => void ended++ };
  const generations = (round: number) => {
    for (let i = 0; i < 8; i++) loop.submit({ id: `g${round}-${i}`, prompt: [1, 2, 3, i], maxTokens: 6 + i }, sink);
    clock.runUntilIdle();
  };
  generations(0);
  const before = namedSoFar();
  generations(1);
  assert.equal(namedSoFar() - before, 0, 'functions named while 8 sequences were generated');
  assert.equal(ended, 16);
});
