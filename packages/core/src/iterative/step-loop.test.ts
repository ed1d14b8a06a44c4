import { test } from 'node:test';
import assert from 'node:assert/strict';
import { VirtualClock } from '../clock/virtual-clock';
import { ContinuousPlanner } from './continuous';
import { StaticBatchPlanner } from './static-batch';
import { SimStepExecutor, simGenerateAlone, type StepCost } from './sim-step';
import { simulateGeneration } from './simulate';
import { StepLoop } from './step-loop';
import type { GenOutcome, GenRequest, IterEvent, IterativeKnobs, StepBatch, StepExecutor, StepTokens } from './types';

const KNOBS: IterativeKnobs = { maxNumSequences: 4, maxNumTokens: 64, enableChunkedContext: false, policy: 'max_utilization', totalBlocks: 16, blockTokens: 4 };
const COST: StepCost = { fixed_us: 1000, per_sequence_us: 100, per_token_us: 10 };

function harness(knobs: Partial<IterativeKnobs> = {}, executor?: (clock: VirtualClock) => StepExecutor) {
  const clock = new VirtualClock(0);
  const k = { ...KNOBS, ...knobs };
  const planner = new ContinuousPlanner(k);
  const events: IterEvent[] = [];
  const loop = new StepLoop({ clock, planner, executor: executor?.(clock) ?? new SimStepExecutor(clock, COST, k), listener: (e) => events.push(e) });
  const outcomes = new Map<string, GenOutcome[]>();
  const tokens = new Map<string, number[]>();
  const submit = (r: GenRequest) =>
    loop.submit(r, {
      onToken: (t, i) => {
        const got = tokens.get(r.id) ?? [];
        assert.equal(i, got.length, `${r.id}'s tokens arrive in order`);
        tokens.set(r.id, [...got, t]);
      },
      onEnd: (o) => outcomes.set(r.id, [...(outcomes.get(r.id) ?? []), o]),
    });
  return { clock, planner, loop, events, outcomes, tokens, submit };
}

test('requests that can never be served are answered at once with the reason, and nothing else is taken', () => {
  const h = harness({ totalBlocks: 4, blockTokens: 4 });
  h.submit({ id: 'huge', prompt: [1, 2, 3], maxTokens: 20 });
  h.submit({ id: 'empty', prompt: [], maxTokens: 2 });
  h.submit({ id: 'float', prompt: [1, 2.5], maxTokens: 2 });
  h.submit({ id: 'zero', prompt: [1], maxTokens: 0 });
  h.submit({ id: 'ok', prompt: [1], maxTokens: 3 });
  h.submit({ id: 'ok', prompt: [1], maxTokens: 3 });
  const message = (id: string) => {
    const o = h.outcomes.get(id)![0]!;
    assert.ok(!o.ok && o.reason === 'rejected');
    return o.message;
  };
  assert.match(message('huge'), /KV cache budget of 4 blocks holds 16 tokens, less than one sequence's maximum of 22 tokens/);
  assert.match(message('empty'), /at least one token/);
  assert.match(message('float'), /prompt token 1 is 2.5/);
  assert.match(message('zero'), /max_tokens must be an integer >= 1, got 0/);
  assert.equal(h.outcomes.get('ok')!.length, 1, 'the duplicate id is answered, the first is kept');
  h.clock.runUntilIdle();
  assert.deepEqual(h.outcomes.get('ok')!.map((o) => o.ok), [false, true]);
  assert.match((h.outcomes.get('ok')![0] as { message: string }).message, /already being generated/);
});

test('without chunked context a text over max_num_tokens is refused, naming the knobs; with it, it is served', () => {
  const off = harness({ maxNumTokens: 8, policy: 'guaranteed_no_evict' });
  off.submit({ id: 'long', prompt: Array.from({ length: 9 }, (_, i) => i), maxTokens: 2 });
  assert.match((off.outcomes.get('long')![0] as { message: string }).message, /prompt of 9 tokens exceeds max_num_tokens 8 and enable_chunked_context is off/);
  // max_utilization may recompute prompt + generated, so that is what must fit.
  const mu = harness({ maxNumTokens: 8, policy: 'max_utilization' });
  mu.submit({ id: 'grows', prompt: [1, 2, 3, 4], maxTokens: 6 });
  assert.match((mu.outcomes.get('grows')![0] as { message: string }).message, /prompt \+ max_tokens - 1 \(9 tokens/);
  const on = harness({ maxNumTokens: 8, enableChunkedContext: true });
  on.submit({ id: 'long', prompt: Array.from({ length: 9 }, (_, i) => i), maxTokens: 2 });
  on.clock.runUntilIdle();
  assert.deepEqual(on.outcomes.get('long')![0], { ok: true, tokens: simGenerateAlone(Array.from({ length: 9 }, (_, i) => i), 2), finishReason: 'length' });
});

test('a client that goes away mid-stream is answered once, and its slot and blocks are free at the next step', () => {
  const h = harness({ maxNumSequences: 2 });
  h.submit({ id: 'leaver', prompt: [1, 2, 3, 4, 5], maxTokens: 30 });
  h.submit({ id: 'stayer', prompt: [6], maxTokens: 5 });
  h.submit({ id: 'waiter', prompt: [7], maxTokens: 2 });
  h.clock.step(); // step 1 starts
  h.clock.step(); // step 1 ends, step 2 starts
  const usedBefore = h.planner.kvUsage().usedBlocks;
  const tokensAtCancel = h.tokens.get('leaver')!.length;
  assert.equal(tokensAtCancel, 1, 'step 1 streamed its first token');
  assert.equal(h.loop.cancel('leaver'), true);
  assert.equal(h.loop.cancel('leaver'), false, 'a second cancel finds nothing');
  assert.deepEqual(h.outcomes.get('leaver')!.map((o) => !o.ok && o.reason), ['cancelled']);
  h.clock.step(); // step 2 ends; step 3 is formed: leaver's blocks freed, waiter joins its slot
  const step3 = h.events.filter((e) => e.type === 'step_started').at(-1)!;
  assert.equal(step3.step, 3);
  assert.deepEqual(step3.joined, ['waiter']);
  assert.ok(!step3.rows.some((r) => r.id === 'leaver'));
  assert.ok(step3.kv.usedBlocks < usedBefore, 'leaver\'s two blocks are back');
  h.clock.runUntilIdle();
  assert.equal(h.tokens.get('leaver')!.length, tokensAtCancel, 'no token after the cancel (step 2 computed one; it is dropped)');
  assert.deepEqual(h.outcomes.get('stayer'), [{ ok: true, tokens: simGenerateAlone([6], 5), finishReason: 'length' }]);
  assert.deepEqual(h.outcomes.get('waiter'), [{ ok: true, tokens: simGenerateAlone([7], 2), finishReason: 'length' }]);
  assert.equal(h.planner.kvUsage().usedBlocks, 0);
  // A waiting request cancels at once, without a step.
  const w = harness({ maxNumSequences: 1 });
  w.submit({ id: 'a', prompt: [1], maxTokens: 3 });
  w.submit({ id: 'b', prompt: [2], maxTokens: 3 });
  assert.equal(w.loop.cancel('b'), true);
  w.clock.runUntilIdle();
  assert.ok(!w.events.some((e) => e.type === 'step_started' && e.rows.some((r) => r.id === 'b')));
});

test('an executor failure answers each sequence of its step once with the reason; the others go on', () => {
  let calls = 0;
  const failing = (clock: VirtualClock): StepExecutor => {
    const sim = new SimStepExecutor(clock, COST, KNOBS);
    return {
      runStep(batch: StepBatch, done: (e: unknown, t?: StepTokens) => void) {
        if (++calls === 2) {
          // answered twice, synchronously: heard once, and the next step does not nest inside this call
          done(new Error('onnxruntime: out of memory'));
          done(null, []);
          return;
        }
        sim.runStep(batch, done);
      },
    };
  };
  const h = harness({ maxNumSequences: 2 }, failing);
  h.submit({ id: 'a', prompt: [1], maxTokens: 4 });
  h.submit({ id: 'b', prompt: [2], maxTokens: 4 });
  h.submit({ id: 'c', prompt: [3], maxTokens: 2 });
  h.clock.runUntilIdle();
  for (const id of ['a', 'b']) {
    const [o, ...more] = h.outcomes.get(id)!;
    assert.equal(more.length, 0);
    assert.ok(o && !o.ok && o.reason === 'failed');
    assert.match(o.message, /generation step 2 failed: onnxruntime: out of memory/);
    assert.equal(o.tokens.length, 1, 'with the token it had');
  }
  assert.deepEqual(h.outcomes.get('c'), [{ ok: true, tokens: simGenerateAlone([3], 2), finishReason: 'length' }]);
  assert.equal(h.planner.kvUsage().usedBlocks, 0);
});

test('an executor that returns the wrong tokens fails its step with a clear message', () => {
  const bad = (): StepExecutor => ({ runStep: (batch, done) => done(null, batch.rows.map(() => null)) });
  const h = harness({}, bad);
  h.submit({ id: 'a', prompt: [1], maxTokens: 2 });
  h.clock.runUntilIdle();
  assert.match((h.outcomes.get('a')![0] as { message: string }).message, /row 0 \(a\) needs a token id, got null/);
});

test('knobs change between steps while traffic flows, and no sequence is lost or answered twice', () => {
  const h = harness({ maxNumSequences: 4, maxNumTokens: 64, totalBlocks: 64 });
  const prompts = Array.from({ length: 20 }, (_, i) => Array.from({ length: 1 + (i * 7) % 23 }, (_, j) => (i + j) % 256));
  prompts.forEach((prompt, i) => h.clock.setTimer(i * 700, () => h.submit({ id: `s${i}`, prompt, maxTokens: 2 + (i % 9) })));
  h.clock.setTimer(3000, () => h.planner.setKnobs({ maxNumSequences: 1 }));
  h.clock.setTimer(9000, () => h.planner.setKnobs({ enableChunkedContext: true, maxNumTokens: 4 }));
  h.clock.setTimer(20000, () => h.planner.setKnobs({ maxNumSequences: 8, maxNumTokens: 32 }));
  assert.throws(() => h.planner.setKnobs({ maxNumTokens: 0 }), /max_num_tokens must be an integer >= 1, got 0/);
  assert.throws(() => h.planner.setKnobs({ policy: 'guaranteed_no_evict' } as never), /policy cannot change live/);
  assert.equal(h.planner.currentKnobs.maxNumTokens, 64, 'a refused change changes nothing');
  h.clock.runUntilIdle();
  const st = h.events.filter((e) => e.type === 'step_started');
  const during = st.filter((e) => e.t > 3000 && e.t < 9000);
  assert.ok(during.length > 3 && during.every((e) => e.rows.length <= 1), 'one sequence per step from the next boundary on');
  assert.ok(st.some((e) => e.t < 3000 && e.rows.length > 1), 'several before');
  assert.ok(st.filter((e) => e.t > 9000 && e.t < 20000).every((e) => e.tokens <= 4));
  prompts.forEach((prompt, i) => assert.deepEqual(h.outcomes.get(`s${i}`), [{ ok: true, tokens: simGenerateAlone(prompt, 2 + (i % 9)), finishReason: 'length' }]));
});

test('figures: TTFT, inter-token gaps and tokens/s of a worked run', () => {
  // One sequence alone, 3 tokens, step = 1000 + 100 per sequence + 10 per token: prefill of 2 tokens 1120,
  // then two decodes of 1110.
  const r = simulateGeneration({ knobs: KNOBS, cost: COST, batching: 'continuous', arrivals: [{ atUs: 500, request: { id: 'x', prompt: [1, 2], maxTokens: 3 } }] });
  assert.equal(r.summary.ttftUs.p50, 1120);
  assert.deepEqual([r.summary.interTokenUs.p50, r.summary.interTokenUs.max], [1110, 1110]);
  assert.equal(r.summary.requestLatencyUs.p99, 1120 + 2 * 1110);
  assert.equal(r.summary.outputTokensPerSec, (3 * 1e6) / 3340);
  assert.deepEqual(r.summary.kvTimeline.map((k) => k.usedBlocks), [1, 1, 0]);
  assert.equal(r.summary.steps, 3);
});

test("a request submitted from a sink (a chat's next turn) joins the next step; never two steps at once", () => {
  let running = 0;
  let most = 0;
  const counting = (clock: VirtualClock): StepExecutor => {
    const sim = new SimStepExecutor(clock, COST, KNOBS);
    return {
      runStep(batch, done) {
        most = Math.max(most, ++running);
        sim.runStep(batch, (e, t) => {
          running--;
          done(e, t);
        });
      },
    };
  };
  const h = harness({}, counting);
  let turns = 0;
  let side = false;
  const turn = (i: number) =>
    h.loop.submit({ id: `turn${i}`, prompt: [i], maxTokens: 2 }, {
      onToken: () => {
        if (side) return;
        side = true;
        h.loop.submit({ id: 'side', prompt: [9], maxTokens: 1 }, { onEnd: (o) => (assert.ok(o.ok), turns++) });
      },
      onEnd: (o) => {
        assert.ok(o.ok);
        turns++;
        if (i < 3) turn(i + 1);
      },
    });
  turn(0);
  h.clock.runUntilIdle();
  assert.equal(turns, 5);
  assert.equal(most, 1, 'one step in flight at a time');
});

test('static batch: a cancelled member pads until the batch ends; when the last runner leaves, the batch ends and the finished are answered', () => {
  const clock = new VirtualClock(0);
  const planner = new StaticBatchPlanner(KNOBS);
  const loop = new StepLoop({ clock, planner, executor: new SimStepExecutor(clock, COST, KNOBS) });
  const ends = new Map<string, { t: number; o: GenOutcome }>();
  const submit = (id: string, maxTokens: number) => loop.submit({ id, prompt: [id.charCodeAt(0)], maxTokens }, { onEnd: (o) => ends.set(id, { t: clock.now(), o }) });
  submit('a', 1);
  submit('b', 50);
  submit('c', 2);
  for (let i = 0; i < 4; i++) clock.step(); // a few steps: a and c are done, b runs on
  assert.equal(ends.size, 0, 'nobody is answered before the batch ends');
  assert.ok(loop.cancel('b'));
  clock.runUntilIdle();
  assert.deepEqual(ends.get('a')!.o, { ok: true, tokens: simGenerateAlone([97], 1), finishReason: 'length' });
  assert.deepEqual(ends.get('c')!.o, { ok: true, tokens: simGenerateAlone([99], 2), finishReason: 'length' });
  assert.equal(ends.get('a')!.t, ends.get('c')!.t, 'answered together, when the batch ended');
  assert.ok(!ends.get('b')!.o.ok);
  assert.equal(planner.kvUsage().usedBlocks, 0);
  assert.ok(loop.idle);
});

test('a live change that would strand an accepted sequence is refused, and the sequence is served', () => {
  const h = harness({ maxNumSequences: 1, maxNumTokens: 64, enableChunkedContext: false, policy: 'guaranteed_no_evict' });
  h.submit({ id: 'first', prompt: [1], maxTokens: 4 });
  h.submit({ id: 'long', prompt: Array.from({ length: 20 }, (_, i) => i), maxTokens: 2 });
  h.clock.step(); // first runs; long waits for the slot
  assert.throws(() => h.planner.setKnobs({ maxNumTokens: 16 }), /would leave a sequence unservable: request long: its prompt of 20 tokens exceeds max_num_tokens 16/);
  h.planner.setKnobs({ maxNumTokens: 16, enableChunkedContext: true }); // with chunks it fits
  h.clock.runUntilIdle();
  assert.deepEqual(h.outcomes.get('long'), [{ ok: true, tokens: simGenerateAlone(Array.from({ length: 20 }, (_, i) => i), 2), finishReason: 'length' }]);
  assert.ok(h.events.filter((e) => e.type === 'step_started').every((e) => e.tokens <= 16 || e.t === 0));
});

test('a planner that throws answers every open request once and refuses later ones, instead of hanging', () => {
  const h = harness();
  h.submit({ id: 'a', prompt: [1], maxTokens: 5 });
  h.submit({ id: 'b', prompt: [2], maxTokens: 5 });
  h.clock.step();
  h.planner.plan = () => {
    throw new Error('block 3 owned twice');
  };
  h.clock.runUntilIdle();
  for (const id of ['a', 'b']) {
    const [o, ...more] = h.outcomes.get(id)!;
    assert.equal(more.length, 0);
    assert.ok(o && !o.ok && o.reason === 'failed');
    assert.match(o.message, /the generation scheduler stopped: block 3 owned twice/);
  }
  h.submit({ id: 'c', prompt: [3], maxTokens: 1 });
  assert.match((h.outcomes.get('c')![0] as { message: string }).message, /stopped: block 3 owned twice/);
});

test('asked for block maps, every step_finished carries one that matches its usage, filling and freeing; unasked, none', () => {
  const knobs: IterativeKnobs = { ...KNOBS, totalBlocks: 6, blockTokens: 4 };
  const arrivals = [
    { atUs: 0, request: { id: 'a', prompt: [1, 2, 3], maxTokens: 9 } },
    { atUs: 0, request: { id: 'b', prompt: [4, 5, 6, 7, 8], maxTokens: 6 } },
    { atUs: 3000, request: { id: 'c', prompt: [9], maxTokens: 4 } },
  ];
  const run = simulateGeneration({ knobs, cost: COST, arrivals, batching: 'continuous', blockMaps: true });
  const finished = run.events.filter((e) => e.type === 'step_finished');
  assert.ok(finished.length > 5);
  const owners = new Set<string>();
  let peak = 0;
  for (const e of finished) {
    const map = e.blocks!;
    assert.equal(map.blocks.length, 6);
    assert.deepEqual(map.usage, e.kv, `step ${e.step}: the map is the usage's moment`);
    const held = map.blocks.filter((b) => b.owner !== null);
    assert.equal(held.length, e.kv.usedBlocks);
    assert.equal(held.reduce((n, b) => n + b.tokens, 0), e.kv.usedTokens, 'the fills add up to the tokens stored');
    for (const b of held) owners.add(b.owner!);
    peak = Math.max(peak, held.length);
  }
  assert.deepEqual([...owners].sort(), ['a', 'b', 'c']);
  assert.ok(peak >= 4, 'the map filled');
  const idle = run.events.at(-1)!;
  assert.equal(idle.type, 'idle');
  assert.ok(idle.type === 'idle' && idle.blocks!.blocks.every((b) => b.owner === null && b.tokens === 0), 'and it is empty when the run ends');
  const plain = simulateGeneration({ knobs, cost: COST, arrivals, batching: 'continuous' });
  assert.ok(plain.events.every((e) => !('blocks' in e)), 'no copies of the map unless asked');
});
