import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Rng } from '../load/rng';
import { simGenerateAlone, type StepCost } from './sim-step';
import { simulateGeneration, type GenArrival, type GenBatching } from './simulate';
import type { IterEvent, IterativeKnobs } from './types';

const MS = 1000;
const KNOBS: IterativeKnobs = {
  maxNumSequences: 4,
  maxNumTokens: 1024,
  enableChunkedContext: false,
  policy: 'guaranteed_no_evict',
  totalBlocks: 64,
  blockTokens: 4,
};
/** The worked cost: 10 ms + 2 ms per sequence in the step. */
const WORKED_COST: StepCost = { fixed_us: 10 * MS, per_sequence_us: 2 * MS, per_token_us: 0 };

const req = (id: string, maxTokens: number, prompt: number[] = [id.charCodeAt(0)]) => ({ id, prompt, maxTokens });
const at = (atUs: number, id: string, maxTokens: number, prompt?: number[]): GenArrival => ({ atUs, request: req(id, maxTokens, prompt) });

function run(batching: GenBatching, arrivals: GenArrival[], knobs: Partial<IterativeKnobs> = {}, cost = WORKED_COST) {
  return simulateGeneration({ knobs: { ...KNOBS, ...knobs }, cost, arrivals, batching });
}

const ends = (r: ReturnType<typeof run>) => Object.fromEntries([...r.outcomes].map(([id, o]) => [id, o.endedAt / MS]));
const steps = (events: IterEvent[]) => events.filter((e): e is Extract<IterEvent, { type: 'step_started' }> => e.type === 'step_started');

test("the issue's worked schedule: 2, 8, 3, 6 tokens at t=0 and 4 at 20 ms, four slots, 10 + 2 x active ms", () => {
  const arrivals = [at(0, 'a', 2), at(0, 'b', 8), at(0, 'c', 3), at(0, 'd', 6), at(20 * MS, 'e', 4)];
  const cont = run('continuous', arrivals);
  assert.deepEqual(ends(cont), { a: 36, b: 126, c: 54, d: 102, e: 102 });
  const st = steps(cont.events);
  // e arrived during step 2 and joins at the boundary where a retires, not before.
  assert.deepEqual(st.map((s) => s.joined), [['a', 'b', 'c', 'd'], [], ['e'], [], [], [], [], []]);
  assert.deepEqual(st.map((s) => s.rows.length), [4, 4, 4, 3, 3, 3, 1, 1]);
  assert.deepEqual(st.map((s) => s.t / MS), [0, 18, 36, 54, 70, 86, 102, 114]);
  const stat = run('static', arrivals);
  assert.deepEqual(ends(stat), { a: 144, b: 144, c: 144, d: 144, e: 192 });
  // Same tokens either way, and each is the sequence's tokens alone.
  for (const [id, o] of cont.outcomes) {
    assert.ok(o.ok);
    assert.deepEqual(o.tokens, simGenerateAlone([id.charCodeAt(0)], o.tokens.length));
    assert.deepEqual(stat.outcomes.get(id)!.tokens, o.tokens);
  }
});

test('a sequence retires after its last token: it leaves the very next step and its blocks are free', () => {
  const r = run('continuous', [at(0, 'short', 2, [1, 2, 3]), at(0, 'long', 5, [4, 5, 6])], { blockTokens: 2 });
  const st = steps(r.events);
  assert.deepEqual(st.map((s) => s.rows.map((x) => `${x.id}:${x.kind}:${x.tokens}`)), [
    ['short:prefill:3', 'long:prefill:3'],
    ['short:decode:1', 'long:decode:1'],
    ['long:decode:1'],
    ['long:decode:1'],
    ['long:decode:1'],
  ]);
  const finished = r.events.filter((e) => e.type === 'step_finished');
  // short's 4 cached tokens (3 + 1) held 2 blocks, long's 4 too; after step 2 short's are free.
  assert.deepEqual(finished.map((e) => e.kv.usedBlocks), [4, 2, 3, 3, 0]);
  assert.equal(r.summary.completed, 2);
  assert.equal(r.summary.outputTokens, 7);
});

/** A seeded mixed workload: prompts of 1..maxPrompt tokens, outputs of 1..maxOut, arrivals over `spanUs`. */
function workload(seed: number, n: number, maxPrompt: number, maxOut: number, spanUs: number): GenArrival[] {
  const rng = new Rng(seed);
  return Array.from({ length: n }, (_, i) => {
    const prompt = Array.from({ length: 1 + Math.floor(rng.next() * maxPrompt) }, () => Math.floor(rng.next() * 256));
    return { atUs: Math.floor(rng.next() * spanUs), request: { id: `r${i}`, prompt, maxTokens: 1 + Math.floor(rng.next() * maxOut) } };
  });
}

/** Every answer is done with the tokens the sequence produces alone (batch invariance); blocks back to zero. */
function assertInvariant(r: ReturnType<typeof run>, arrivals: GenArrival[]): void {
  assert.equal(r.outcomes.size, arrivals.length, 'every request answered');
  for (const a of arrivals) {
    const o = r.outcomes.get(a.request.id)!;
    assert.ok(o.ok, `${a.request.id}: ${o.ok ? '' : o.message}`);
    assert.deepEqual(o.tokens, simGenerateAlone(a.request.prompt, a.request.maxTokens), `${a.request.id}'s tokens equal its tokens alone`);
  }
  const last = r.events.filter((e) => e.type === 'step_finished').at(-1)!;
  assert.equal(last.kv.usedBlocks, 0, 'every block is free at the end');
  assert.equal(last.kv.reservedBlocks, 0, 'nothing is still reserved');
  assert.equal(r.events.filter((e) => e.type === 'seq_finished').length, arrivals.length, 'answered exactly once each');
}

const COST: StepCost = { fixed_us: 1000, per_sequence_us: 100, per_token_us: 20 };

test('guaranteed_no_evict never preempts and never holds more blocks than the budget, under a tight budget', () => {
  for (let seed = 1; seed <= 12; seed++) {
    const arrivals = workload(seed, 30, 20, 24, 40_000);
    const knobs = { totalBlocks: 14, blockTokens: 4, policy: 'guaranteed_no_evict' as const, maxNumSequences: 8, enableChunkedContext: seed % 2 === 0, maxNumTokens: seed % 2 === 0 ? 16 : 64 };
    const r = run('continuous', arrivals, knobs, COST);
    assertInvariant(r, arrivals);
    assert.equal(r.summary.preemptions, 0);
    // The budget, not the slots, made someone wait: a boundary with a free slot and a queued sequence.
    const queued = new Set<string>();
    let running = 0;
    let heldBack = 0;
    for (const e of r.events) {
      if (e.type === 'seq_queued') queued.add(e.id);
      if (e.type === 'seq_finished') running--;
      if (e.type !== 'step_started') continue;
      for (const id of e.joined) queued.delete(id);
      running += e.joined.length;
      if (running < knobs.maxNumSequences && queued.size > 0) heldBack++;
    }
    if (seed === 1) assert.ok(heldBack > 0, 'admission waited for blocks');
    for (const e of r.events) {
      if (e.type !== 'step_started' && e.type !== 'step_finished') continue;
      assert.ok(e.kv.usedBlocks + e.kv.reservedBlocks <= 14, `step ${e.step}: used ${e.kv.usedBlocks} + reserved ${e.kv.reservedBlocks} within 14 blocks`);
    }
  }
});

test('max_utilization preempts the newest when blocks run out and recomputes it to the same final tokens', () => {
  let preemptions = 0;
  for (let seed = 1; seed <= 12; seed++) {
    const arrivals = workload(seed, 30, 20, 24, 40_000);
    const knobs = { totalBlocks: 12, blockTokens: 4, policy: 'max_utilization' as const, maxNumSequences: 8, enableChunkedContext: true, maxNumTokens: 32 };
    const r = run('continuous', arrivals, knobs, COST);
    assertInvariant(r, arrivals);
    preemptions += r.summary.preemptions;
    // Each preemption takes the most recently admitted of the sequences running at that boundary.
    const admitted: string[] = [];
    for (const e of r.events) {
      if (e.type === 'step_started') admitted.push(...e.joined);
      if (e.type === 'seq_finished') admitted.splice(admitted.indexOf(e.id), 1);
      if (e.type === 'seq_preempted') {
        assert.equal(e.id, admitted.at(-1), `step ${e.step}: preempted the newest`);
        admitted.pop();
      }
    }
  }
  assert.ok(preemptions > 10, `the tight budget preempted (${preemptions} times)`);
});

test('a preempted sequence is recomputed from its whole text (prompt + generated) and resumes its stream', () => {
  // Two sequences of 4-token prompts growing to 12 tokens each in 5 blocks of 4: the newest gives way.
  const arrivals = [at(0, 'old', 9, [1, 2, 3, 4]), at(0, 'new', 9, [5, 6, 7, 8])];
  const r = run('continuous', arrivals, { totalBlocks: 5, blockTokens: 4, policy: 'max_utilization', maxNumTokens: 64 }, COST);
  assertInvariant(r, arrivals);
  const pre = r.events.find((e) => e.type === 'seq_preempted')!;
  assert.equal(pre.id, 'new');
  const rejoin = steps(r.events).find((s) => s.step > pre.step && s.joined.includes('new'))!;
  const row = rejoin.rows.find((x) => x.id === 'new')!;
  assert.equal(row.kind, 'prefill');
  assert.equal(row.tokens, 4 + pre.generated, 'recomputes prompt + every token generated before');
  assert.equal(pre.recompute, row.tokens);
  const indices = r.events.filter((e) => e.type === 'token' && e.id === 'new').map((e) => (e as { index: number }).index);
  assert.deepEqual(indices, [0, 1, 2, 3, 4, 5, 6, 7, 8], 'each token streamed once, in order, across the preemption');
});

test('chunked prefill bounds every step by max_num_tokens and keeps decodes running beside a long prompt', () => {
  const arrivals = [at(0, 'chat', 12, [1, 2]), at(3000, 'essay', 2, Array.from({ length: 100 }, (_, i) => i % 256))];
  const on = run('continuous', arrivals, { enableChunkedContext: true, maxNumTokens: 16 }, COST);
  assertInvariant(on, arrivals);
  const st = steps(on.events);
  assert.ok(st.every((s) => s.tokens <= 16), 'no step over the budget');
  const essaySteps = st.filter((s) => s.rows.some((x) => x.id === 'essay' && x.kind === 'prefill'));
  assert.equal(essaySteps.reduce((n, s) => n + s.rows.find((x) => x.id === 'essay')!.tokens, 0), 100, 'the prompt is prefilled once, in chunks');
  assert.ok(essaySteps.length >= 7, 'spread over steps');
  const chatStepsDuring = essaySteps.filter((s) => s.rows.some((x) => x.id === 'chat')).length;
  assert.equal(chatStepsDuring, essaySteps.filter((s) => s.t < on.outcomes.get('chat')!.endedAt).length, 'chat decodes in every chunk step while it runs');
  // Off: the whole prompt is one step (the budget allows it), so that step carries 100+ tokens.
  const off = run('continuous', arrivals, { enableChunkedContext: false, maxNumTokens: 128 }, COST);
  assertInvariant(off, arrivals);
  assert.ok(steps(off.events).some((s) => s.tokens > 100));
  assert.ok(on.summary.interTokenUs.max < off.summary.interTokenUs.max, `the long prompt stalls chat's tokens less in chunks (${on.summary.interTokenUs.max} < ${off.summary.interTokenUs.max} µs)`);
});

test('continuous batching pads no slot and needs fewer steps than static batching on mixed output lengths', () => {
  for (let seed = 1; seed <= 6; seed++) {
    const arrivals = workload(seed, 24, 8, 40, 60_000);
    const knobs = { maxNumSequences: 6, totalBlocks: 128, blockTokens: 8 };
    const cont = run('continuous', arrivals, knobs, COST);
    const stat = run('static', arrivals, knobs, COST);
    assertInvariant(cont, arrivals);
    assertInvariant(stat, arrivals);
    assert.equal(cont.summary.outputTokens, stat.summary.outputTokens);
    assert.equal(cont.summary.padSlots, 0);
    assert.ok(stat.summary.padSlots > 0);
    // The work (rows) is the same; static adds padding on top of it, in more steps.
    assert.equal(stat.summary.busySlots, cont.summary.busySlots);
    assert.ok(cont.summary.steps < stat.summary.steps, `seed ${seed}: ${cont.summary.steps} steps < ${stat.summary.steps}`);
    assert.ok(cont.summary.ttftUs.p99 < stat.summary.ttftUs.p99);
  }
});

test('an end token retires a sequence early (not delivered, finish reason stop), continuous and static alike', () => {
  // A vocabulary of 6 with end token 0: most sequences stop long before max_tokens, at lengths only the
  // model decides, which is the mixed-length traffic continuous batching is for.
  const arrivals = workload(7, 20, 6, 40, 20_000).map((a) => ({ ...a, request: { ...a.request, prompt: a.request.prompt.map((t) => 1 + (t % 5)), endToken: 0 } }));
  const knobs = { ...KNOBS, maxNumSequences: 4 };
  const byBatching = (['continuous', 'static'] as const).map((batching) => simulateGeneration({ knobs, cost: COST, arrivals, batching, vocab: 6 }));
  for (const r of byBatching) {
    let stops = 0;
    for (const a of arrivals) {
      const o = r.outcomes.get(a.request.id)!;
      assert.ok(o.ok);
      assert.deepEqual(o.tokens, simGenerateAlone(a.request.prompt, a.request.maxTokens, 6, 0));
      assert.ok(!o.tokens.includes(0), 'the end token is not a token of the text');
      assert.equal(o.finishReason, o.tokens.length < a.request.maxTokens ? 'stop' : 'length');
      if (o.finishReason === 'stop') stops++;
    }
    assert.ok(stops >= 10, `most stopped at the end token (${stops})`);
  }
  const [cont, stat] = byBatching.map((r) => r.summary);
  assert.equal(cont!.padSlots, 0);
  assert.ok(stat!.padSlots > 0 && cont!.steps < stat!.steps);
});
