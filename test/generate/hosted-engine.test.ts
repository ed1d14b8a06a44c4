// The main thread's side of a step loop hosted in the instance's thread (generate/hosted-engine.ts),
// against a scripted loop: what the loop tells reaches the listener and sinks in its order; a cancel is
// answered at once and what the loop still tells of that sequence is dropped; a dead thread fails every
// open sequence once, and requests sent meanwhile go to the replacement loop in order, or are refused with
// the reason when none can start. Virtual clock, no thread, no model.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { VirtualClock } from '@inferscope/core/clock';
import type { HostedProgram, InstanceInfo, ProgramLink } from '@inferscope/core/scheduler';
import type { GenOutcome, IterEvent, IterativeKnobs } from '@inferscope/core/iterative';
import { HostedEngine, type HostProgram } from '../../apps/server/src/generate/hosted-engine';
import type { FromLoop, ToLoop } from '../../apps/server/src/generate/engine-wire';
import { TINY_LM_KV_SHAPE } from '../../apps/server/src/model-generator/tiny-lm';

const INSTANCE: InstanceInfo = { name: 'm_0', group: 'm', kind: 'KIND_CPU', device: 'cpu', index: 0 };
const KNOBS: IterativeKnobs = { maxNumSequences: 4, maxNumTokens: 256, enableChunkedContext: false, policy: 'guaranteed_no_evict', totalBlocks: 32, blockTokens: 16 };
const KV = { totalBlocks: 32, usedBlocks: 0, freeBlocks: 32, reservedBlocks: 0, sequences: 0, usedTokens: 0, heldTokenSlots: 0 };

/** A host that records every program started and what each was sent; `fail` makes the next start reject. */
function scriptedHost() {
  const programs: { program: HostedProgram; sent: ToLoop[] }[] = [];
  let fail: string | null = null;
  const host: HostProgram = async (_instance, program): Promise<ProgramLink> => {
    if (fail) throw new Error(fail);
    const entry = { program, sent: [] as ToLoop[] };
    programs.push(entry);
    return { post: (body) => entry.sent.push(body as ToLoop) };
  };
  return { host, programs, failNext: (why: string) => (fail = why), last: () => programs.at(-1)! };
}

async function engine() {
  const clock = new VirtualClock();
  const events: IterEvent[] = [];
  const h = scriptedHost();
  const e = await HostedEngine.start(h.host, INSTANCE, { batching: 'continuous', knobs: KNOBS, shape: TINY_LM_KV_SHAPE, vocab: 257 }, clock, (ev) => events.push(ev));
  const tell = (...body: FromLoop[]) => h.last().program.message(body);
  const sink = () => {
    const got: { tokens: number[]; ends: GenOutcome[] } = { tokens: [], ends: [] };
    return { got, sink: { onToken: (t: number) => got.tokens.push(t), onEnd: (o: GenOutcome) => got.ends.push(o) } };
  };
  return { e, h, events, tell, sink, clock };
}

const request = (id: string) => ({ id, prompt: [104, 105], maxTokens: 3 });

test('what the loop tells reaches the listener and the sinks in its order; idle once the loop said so and every request ended', async () => {
  const { e, h, events, tell, sink } = await engine();
  const a = sink();
  e.submit(request('a'), a.sink);
  assert.deepEqual(h.last().sent, [{ op: 'submit', request: request('a') }]);
  assert.equal(e.idle, false);
  tell(
    { k: 'event', e: { type: 'seq_queued', t: 1, id: 'a', promptTokens: 2, maxTokens: 3 } },
    { k: 'event', e: { type: 'step_started', t: 2, step: 1, rows: [{ id: 'a', kind: 'prefill', tokens: 2 }], joined: ['a'], padSlots: 0, tokens: 2, kv: { ...KV, usedBlocks: 1, freeBlocks: 31, sequences: 1 } } },
    { k: 'token', id: 'a', token: 7, index: 0 },
  );
  assert.deepEqual(a.got.tokens, [7]);
  assert.equal(e.kvUsage().usedBlocks, 1, 'KV use from the events');
  tell(
    { k: 'event', e: { type: 'seq_finished', t: 3, id: 'a', outcome: 'done', tokens: 1 } },
    { k: 'event', e: { type: 'idle', t: 3, kv: KV } },
    { k: 'map', tables: { policy: 'guaranteed_no_evict', blockTokens: 16, sequences: [{ id: 'b', tokens: 20, maxTokens: 40, blocks: [5, 2], reservedBlocks: 0 }], usage: { ...KV, usedBlocks: 2 } } },
  );
  assert.equal(e.idle, false, 'the loop is idle but the request has not had its end');
  tell({ k: 'end', id: 'a', outcome: { ok: true, tokens: [7], finishReason: 'length' } });
  assert.equal(e.idle, true);
  assert.deepEqual(a.got.ends.map((o) => o.ok), [true]);
  assert.deepEqual(events.map((ev) => ev.type), ['seq_queued', 'step_started', 'seq_finished', 'idle']);
  const map = e.blockMap();
  assert.deepEqual([map.blocks[5], map.blocks[2], map.blocks[0]], [{ owner: 'b', tokens: 16 }, { owner: 'b', tokens: 4 }, { owner: null, tokens: 0 }], 'the blocks derived from the tables');
});

test('a cancel is answered at once; what the loop still tells of that sequence is dropped; an unknown id is not cancelled', async () => {
  const { e, h, events, tell, sink } = await engine();
  const a = sink();
  e.submit(request('a'), a.sink);
  assert.equal(e.cancel('a'), true);
  assert.deepEqual(a.got.ends.map((o) => (o.ok ? 'ok' : o.reason)), ['cancelled']);
  assert.deepEqual(h.last().sent.at(-1), { op: 'cancel', id: 'a' });
  assert.equal(e.cancel('a'), false, 'answered already');
  assert.equal(e.cancel('nobody'), false);
  // the step in flight when the cancel left: its token and the loop's own end of the sequence
  tell(
    { k: 'event', e: { type: 'token', t: 5, step: 1, id: 'a', index: 0, token: 9 } },
    { k: 'token', id: 'a', token: 9, index: 0 },
    { k: 'event', e: { type: 'seq_finished', t: 5, id: 'a', outcome: 'done', tokens: 1 } },
    { k: 'end', id: 'a', outcome: { ok: true, tokens: [9], finishReason: 'length' } },
  );
  assert.deepEqual(a.got.tokens, []);
  assert.equal(a.got.ends.length, 1, 'one answer');
  const finished = events.filter((ev) => ev.type === 'seq_finished');
  assert.deepEqual(finished.map((ev) => ev.type === 'seq_finished' && ev.outcome), ['cancelled'], 'one end for the listener, the cancel');
});

test('a dead thread: each open sequence fails once, a pending replan is refused, what comes meanwhile goes to the new loop in order', async () => {
  const { e, h, tell, sink } = await engine();
  const a = sink();
  const b = sink();
  e.submit(request('a'), a.sink);
  const replan = e.replan({ ...KNOBS, maxNumSequences: 2 });
  h.last().program.ended(new Error('instance m_0 worker exited with code 3 while running'));
  assert.deepEqual(a.got.ends.map((o) => !o.ok && o.message), ['the generation loop stopped: instance m_0 worker exited with code 3 while running']);
  await assert.rejects(replan, /generation loop stopped/);
  e.submit(request('b'), b.sink);
  assert.equal(e.cancel('b'), true);
  const c = sink();
  e.submit(request('c'), c.sink);
  await new Promise((r) => setImmediate(r)); // the replacement's start resolves
  assert.equal(h.programs.length, 2);
  assert.deepEqual(h.last().sent, [{ op: 'submit', request: request('b') }, { op: 'cancel', id: 'b' }, { op: 'submit', request: request('c') }]);
  tell({ k: 'end', id: 'c', outcome: { ok: true, tokens: [1, 2, 3], finishReason: 'length' } });
  assert.equal(c.got.ends[0]?.ok, true);
  assert.equal(a.got.ends.length, 1);
});

test('no loop can start again: what waited and what comes later is refused with the reason', async () => {
  const { e, h, events, sink } = await engine();
  h.failNext('no session');
  h.last().program.ended(new Error('crashed'));
  const a = sink();
  e.submit(request('a'), a.sink);
  await new Promise((r) => setImmediate(r));
  const b = sink();
  e.submit(request('b'), b.sink);
  for (const s of [a, b]) assert.match(s.got.ends[0] && !s.got.ends[0].ok ? s.got.ends[0].message : '', /generation loop stopped: crashed; it could not be started again: no session/);
  assert.deepEqual(events.filter((ev) => ev.type === 'seq_rejected').map((ev) => ev.type === 'seq_rejected' && ev.id), ['a', 'b']);
  await assert.rejects(e.replan(KNOBS), /could not be started again/);
});
