/**
 * The dashboard's view of the sequence batcher as events: a `sequence.slots` event when a sequence takes
 * or leaves a slot, joins or leaves the backlog, or the state it holds changes, and none when a request
 * changes nothing of that; the last event equals the snapshot's view. Virtual clock, no sleeping.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SequenceSlotsEvent } from '@inferscope/core';
import { SeqHarness } from './helpers.ts';
import { seqConfig } from './config.ts';

const views = (h: SeqHarness) => h.events.filter((e): e is SequenceSlotsEvent => e.type === 'sequence.slots');
const holders = (e: SequenceSlotsEvent) => e.view.instances.flatMap((i) => i.slots.map((s) => s.sequence?.id ?? null));

test('sequence.slots: sent on a bind, the backlog and a release, not for a request that changes none of them', async () => {
  const h = new SeqHarness(seqConfig({ maxBatch: 1 }));
  await h.start();
  const sent = () => views(h).length;
  const before = sent();
  h.send(1n, 'start', 1);
  h.exec.drain();
  assert.deepEqual(holders(views(h).at(-1)!), ['1']);
  assert.equal(views(h).at(-1)!.view.state_memory.sequences, 1);
  const bound = sent();
  assert.ok(bound > before);

  // a middle request of the bound sequence: nothing the view shows changes
  h.send(1n, '', 2);
  h.exec.drain();
  assert.equal(sent(), bound, 'no event for a request that moves no seat');

  // a second sequence while the one slot is held: it waits in the backlog
  h.send(2n, 'start', 5);
  const waiting = views(h).at(-1)!;
  assert.deepEqual(waiting.view.backlog.map((b) => [b.sequence.id, b.sequence.type, b.requests]), [['2', 'UINT64', 1]]);

  // 1 ends: its slot goes to the backlog's 2
  h.send(1n, 'end', 3);
  h.exec.drain();
  h.exec.drain();
  const last = views(h).at(-1)!;
  assert.deepEqual(holders(last), ['2']);
  assert.deepEqual(last.view.backlog, []);
  assert.deepEqual(last.view, h.sched.snapshot().sequence, 'the last event is the snapshot\'s view');
  assert.equal(last.model, 'm');
});

test('sequence.slots: a flood of STARTs is counted, the listed backlog bounded', async () => {
  const h = new SeqHarness(seqConfig({ maxBatch: 1 }));
  await h.start();
  for (let i = 1; i <= 70; i++) h.send(BigInt(i), 'start', 1);
  const last = views(h).at(-1)!;
  assert.deepEqual(holders(last), ['1']);
  assert.equal(last.view.backlog_total, 69);
  assert.equal(last.view.backlog.length, 64);
  assert.deepEqual(last.view.backlog.slice(0, 2).map((b) => b.sequence.id), ['2', '3']);
  assert.equal(h.sched.snapshot().backlog.length, 69, 'the scheduler snapshot still lists every one');
});
