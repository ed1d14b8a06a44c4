import { test } from 'node:test';
import assert from 'node:assert/strict';
import { VirtualClock } from '../clock/virtual-clock';
import { mulberry32 } from '../load/rng';
import { ContinuousPlanner } from './continuous';
import { GenSequence } from './sequence';
import { replanAtBoundary, type Replan } from './replan';
import { SimStepExecutor, simGenerateAlone, type StepCost } from './sim-step';
import { StepLoop } from './step-loop';
import { newPlanner } from './simulate';
import type { GenBatching, GenOutcome, GenRequest, IterEvent, IterativeKnobs } from './types';

const KNOBS: IterativeKnobs = { maxNumSequences: 4, maxNumTokens: 32, enableChunkedContext: true, policy: 'max_utilization', totalBlocks: 24, blockTokens: 4 };
const COST: StepCost = { fixed_us: 1000, per_sequence_us: 100, per_token_us: 10 };

function workload(n: number, seed: number): { atUs: number; request: GenRequest }[] {
  const rand = mulberry32(seed);
  const int = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));
  return Array.from({ length: n }, (_, i) => ({
    atUs: i * 700,
    request: { id: `r${i}`, prompt: Array.from({ length: int(2, 12) }, () => int(0, 255)), maxTokens: int(3, 15) },
  }));
}

/** A loop on the virtual clock serving `arrivals`, with knob changes at the given times. */
function run(arrivals: ReturnType<typeof workload>, changes: { atUs: number; knobs: Partial<IterativeKnobs> }[] = [], batching: GenBatching = 'continuous') {
  const clock = new VirtualClock(0);
  const events: IterEvent[] = [];
  const loop = new StepLoop({ clock, planner: newPlanner(batching, KNOBS), executor: new SimStepExecutor(clock, COST, KNOBS), listener: (e) => events.push(e) });
  const outcomes = new Map<string, GenOutcome[]>();
  const streamed = new Map<string, number[]>();
  const results: (Replan | string)[] = [];
  let recomputed = 0;
  let knobs = KNOBS;
  for (const a of arrivals) {
    clock.setTimer(a.atUs, () =>
      loop.submit(a.request, {
        onToken: (t, i) => {
          const got = streamed.get(a.request.id) ?? [];
          assert.equal(i, got.length, `${a.request.id}: each token once, in order`);
          streamed.set(a.request.id, [...got, t]);
        },
        onEnd: (o) => outcomes.set(a.request.id, [...(outcomes.get(a.request.id) ?? []), o]),
      }),
    );
  }
  for (const c of changes) {
    clock.setTimer(c.atUs, () => {
      // each change builds on the one before (all accepted in the test that chains them)
      const next = { ...knobs, ...c.knobs };
      knobs = next;
      replanAtBoundary(loop, batching, next, (k) => {
        recomputed += loop.current.live().running.length;
        return new SimStepExecutor(clock, COST, k);
      }).then(
        (r) => results.push(r),
        (e: Error) => results.push(e.message),
      );
    });
  }
  return { clock, loop, events, outcomes, streamed, results, recomputed: () => recomputed };
}

const settle = () => new Promise((r) => setImmediate(r));

test('knobs changed live, the policy and the KV budget by a new planner: every request has one answer, the tokens it has alone', async () => {
  const arrivals = workload(16, 7);
  const plain = run(arrivals);
  plain.clock.runUntilIdle();
  const changed = run(arrivals, [
    { atUs: 2_000, knobs: { maxNumSequences: 2 } },
    { atUs: 4_000, knobs: { policy: 'guaranteed_no_evict' } },
    { atUs: 6_000, knobs: { totalBlocks: 10 } },
    { atUs: 8_000, knobs: { enableChunkedContext: false, maxNumTokens: 64 } },
    { atUs: 10_000, knobs: { policy: 'max_utilization', totalBlocks: 30, maxNumSequences: 5 } },
    { atUs: 12_000, knobs: { enableChunkedContext: true, maxNumTokens: 8 } },
    { atUs: 14_000, knobs: { totalBlocks: 7 } },
  ]);
  changed.clock.runUntilIdle();
  await settle();
  assert.deepEqual(changed.results, ['live', 'replanned', 'replanned', 'live', 'replanned', 'live', 'replanned']);
  assert.ok(changed.recomputed() > 0, 'a new planner took over running sequences (recomputed), not only waiting ones');
  assert.ok(changed.loop.idle);
  for (const { request } of arrivals) {
    const ends = changed.outcomes.get(request.id) ?? [];
    assert.equal(ends.length, 1, `${request.id} answered exactly once`);
    const end = ends[0]!;
    assert.ok(end.ok, `${request.id}: ${JSON.stringify(end)}`);
    const alone = simGenerateAlone(request.prompt, request.maxTokens);
    assert.deepEqual(end.tokens, alone, `${request.id}: the tokens it has alone`);
    assert.deepEqual(changed.streamed.get(request.id), alone, `${request.id}: streamed once each`);
    assert.deepEqual(plain.outcomes.get(request.id)![0]!.tokens, alone);
  }
  // the swaps show as preemptions (the timeline marks them), and the last KV budget is the one in use
  assert.ok(changed.events.filter((e) => e.type === 'seq_preempted').length >= changed.recomputed());
  const idle = changed.events.at(-1)!;
  assert.ok(idle.type === 'idle' && idle.kv.totalBlocks === 7 && idle.kv.usedBlocks === 0, JSON.stringify(idle));
});

test('a change a held sequence could never be served under is refused, and nothing changes', async () => {
  const long = { atUs: 0, request: { id: 'long', prompt: Array.from({ length: 20 }, (_, i) => i), maxTokens: 6 } };
  const h = run([long, ...workload(4, 3).map((a) => ({ ...a, atUs: a.atUs + 100 }))], [
    // a new planner (the policy) without chunking under a token budget the running prompt's recompute exceeds
    { atUs: 500, knobs: { policy: 'guaranteed_no_evict', enableChunkedContext: false, maxNumTokens: 16 } },
    // a KV budget under one held sequence's maximum (25 tokens: 7 blocks of 4)
    { atUs: 600, knobs: { totalBlocks: 6 } },
    // in place: a waiting sequence over the new budget without chunking
    { atUs: 700, knobs: { enableChunkedContext: false, maxNumTokens: 4 } },
  ]);
  const before = h.loop.current;
  h.clock.runUntilIdle();
  await settle();
  assert.equal(h.results.length, 3);
  assert.match(String(h.results[0]), /would leave a sequence unservable: request long: its prompt \+ max_tokens - 1 \(25 tokens, what a preempted sequence recomputes\) exceeds max_num_tokens 16/);
  assert.match(String(h.results[1]), /would leave a sequence unservable: request long: .*KV cache budget of 6 blocks/);
  assert.match(String(h.results[2]), /would leave a sequence unservable/);
  assert.equal(h.loop.current, before, 'the planner was not replaced');
  assert.deepEqual((before as ContinuousPlanner).currentKnobs, KNOBS, 'the knobs are as they were');
  for (const [id, ends] of h.outcomes) assert.ok(ends.length === 1 && ends[0]!.ok, id);
  assert.equal(h.outcomes.size, 5);
});

test('boundary work runs after the step in flight ends and before the next is formed', async () => {
  const h = run(workload(3, 1));
  h.clock.advanceTo(1_500); // the first step (1000 + rows) is in flight, others wait
  const seen: string[] = [];
  const mark = h.events.length;
  const done = h.loop.atBoundary(() => {
    seen.push(h.events.slice(mark).map((e) => e.type).join(','));
    return 'ran';
  });
  assert.deepEqual(seen, [], 'not while the step runs');
  h.clock.runUntilIdle();
  assert.equal(await done, 'ran');
  assert.ok(/step_finished$/.test(seen[0]!), `ran right after the step ended: ${seen[0]}`);
});

test('the request-level baseline takes the same changes by a new planner: its batches re-formed, every request answered once with its tokens', async () => {
  const arrivals = workload(10, 11);
  const h = run(arrivals, [
    { atUs: 1_500, knobs: { maxNumSequences: 2 } },
    { atUs: 5_000, knobs: { totalBlocks: 12 } },
    { atUs: 9_000, knobs: { maxNumSequences: 6, totalBlocks: 40 } },
  ], 'static');
  h.clock.runUntilIdle();
  await settle();
  assert.deepEqual(h.results, ['replanned', 'replanned', 'replanned']);
  assert.ok(h.recomputed() > 0, 'a batch was running when its planner was replaced');
  for (const { request } of arrivals) {
    const ends = h.outcomes.get(request.id) ?? [];
    assert.equal(ends.length, 1, `${request.id} answered exactly once`);
    assert.deepEqual(ends[0]!.ok && ends[0]!.tokens, simGenerateAlone(request.prompt, request.maxTokens), request.id);
  }
  assert.ok(h.loop.idle);
});

test('a planner that takes over puts the admitted sequences first, oldest first and recomputed, then the waiting ones in order', () => {
  const old = new ContinuousPlanner({ ...KNOBS, maxNumSequences: 2 });
  for (const id of ['a', 'b', 'c', 'd']) assert.equal(old.enqueue(new GenSequence({ id, prompt: [1, 2, 3], maxTokens: 4 })), null);
  const step = old.plan()!;
  assert.deepEqual(step.joined, ['a', 'b']);
  old.complete(step, step.batch.rows.map(() => 7));
  assert.deepEqual(old.live().running.map((s) => s.cached), [3, 3]);
  const next = new ContinuousPlanner({ ...KNOBS, totalBlocks: 12 });
  assert.equal(next.takeOverProblem(old), null);
  const handed = old.handOver();
  next.takeOver(handed);
  assert.deepEqual(next.queues, { waiting: ['a', 'b', 'c', 'd'], running: [] });
  assert.deepEqual(handed.recomputed.map((s) => [s.id, s.cached, s.generated.length, s.preemptions]), [['a', 0, 1, 1], ['b', 0, 1, 1]]);
  assert.equal(old.busy, false, 'the old planner holds nothing');
  // the step numbering carries on, and the recompute feeds each whole known text (prompt + its token)
  const first = next.plan()!;
  assert.equal(first.batch.step, 2);
  assert.deepEqual(first.batch.rows.filter((r) => r.id === 'a' || r.id === 'b').map((r) => r.tokens), [[1, 2, 3, 7], [1, 2, 3, 7]]);
});
