/**
 * The oldest strategy (Triton's OldestSequenceBatch; the dyna-sequence qa models: oldest {
 * max_candidate_sequences: 6, preferred_batch_size: [4], max_queue_delay_microseconds: 0 }). Each slot sends
 * one request at a time into the instance's dynamic batcher, the next when it has completed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BACKLOG_FILL_BATCHES, SeqHarness, sendAll, sendBacklogFill } from './helpers.ts';
import { seqConfig } from './config.ts';

const oldest = (o: { max_candidate_sequences?: number; preferred_batch_size?: number[]; max_queue_delay_microseconds?: number } = {}) =>
  seqConfig({ sb: { oldest: { max_candidate_sequences: 6, preferred_batch_size: [4], max_queue_delay_microseconds: 0, ...o } } });

test('max_candidate_sequences slots per instance; oldest first; never two requests of one sequence in a batch', async () => {
  const h = new SeqHarness(oldest(), { holdUntil: { requests: 12 } });
  await h.start();
  const ends: string[] = [];
  for (const id of [1n, 2n, 3n, 4n, 5n, 6n]) ends.push(sendAll(h, id, [['start', 1], ['end', 10]])[1]!);
  assert.deepEqual(h.slotsOf(), ['1', '2', '3', '4', '5', '6'], 'six candidate slots on one instance with max_batch_size 4');
  h.exec.drain();
  assert.deepEqual(h.exec.compositions(), [
    ['1:1', '2:1', '3:1', '4:1'],
    ['5:1', '6:1', '1:10', '2:10'],
    ['3:10', '4:10', '5:10', '6:10'],
  ]);
  for (const b of h.exec.all) assert.equal(new Set(b.requests.map((r) => r.sequence!.id)).size, b.requests.length);
  assert.ok(ends.every((r) => h.answer(r)?.result === 11));
  assert.equal(h.sched.stateBytes, 0);
});

test('the dynamic batcher of the instance: a preferred size goes at once, a smaller batch after max_queue_delay', async () => {
  const h = new SeqHarness(oldest({ preferred_batch_size: [2], max_queue_delay_microseconds: 1000 }));
  await h.start();
  h.send(1n, 'start', 1);
  h.clock.advanceTo(999);
  assert.equal(h.exec.running.length, 0);
  h.clock.advanceTo(1000);
  assert.deepEqual(h.exec.compositions(), [['1:1']]);
  h.exec.finish();
  h.send(1n, '', 2);
  h.send(2n, 'start', 5);
  assert.deepEqual(h.exec.compositions()[1], ['1:2', '2:5'], 'preferred size 2 reached: no wait');
  const triggers = h.events.flatMap((e) => (e.type === 'batch.formed' ? [e.trigger] : []));
  assert.deepEqual(triggers, ['delay', 'preferred']);
});

test('test_backlog_fill on the oldest strategy: a freed slot goes to the backlog when its END is issued; the backlog runs after that END (3 executions)', async () => {
  const h = new SeqHarness(oldest({ max_candidate_sequences: 0 }), { holdUntil: { requests: 10, backlog: 2 } });
  await h.start();
  sendBacklogFill(h);
  h.exec.finish();
  // 1002's and 1003's ENDs are issued: their slots went to the backlog, whose requests wait for those ENDs
  assert.deepEqual(h.slotsOf(), ['1001', '1005', '1006', '1004']);
  assert.deepEqual(h.sched.snapshot().instances[0]!.slots.map((s) => [s.in_flight, s.queued]), [[true, 1], [true, 1], [true, 1], [true, 1]]);
  h.exec.drain();
  assert.deepEqual(h.exec.compositions(), BACKLOG_FILL_BATCHES);
  assert.deepEqual(h.batchStats(), { 4: 3 });
});

test('a new sequence given a slot whose END is issued but has not run waits for that END (the lowest free slot, as Triton hands them out)', async () => {
  const h = new SeqHarness(oldest({ max_candidate_sequences: 5 }), { holdUntil: { requests: 5 } });
  await h.start();
  for (const id of [1n, 2n, 3n, 4n]) h.send(id, 'start', 1);
  h.send(1n, 'end', 1); // waits on slot 0 behind the running request
  h.exec.finish(); // 1's END is issued and runs at once: slot 0 is free again, its END running
  assert.deepEqual(h.exec.compositions()[1], ['1:1']);
  h.send(7n, 'start', 7);
  const slot0 = h.sched.snapshot().instances[0]!.slots[0]!;
  assert.deepEqual([slot0.sequence?.id, slot0.in_flight, slot0.queued], ['7', true, 1], 'slot 0 (lowest) rather than the never-used slot 4, waiting for the END');
  h.send(8n, 'start', 8);
  assert.deepEqual(h.slotsOf(), ['7', '2', '3', '4', '8']);
  h.exec.finish();
  assert.deepEqual(h.exec.compositions()[2], ['8:8', '7:7'], "oldest issued first: 8 was issued at arrival, 7 when 1's END had run");
});

/** L0_dyna_sequence_batcher's models after its test.sh: oldest, 4 candidates, preferred 4, a 5 s delay */
const dyna = () => oldest({ max_candidate_sequences: 4, max_queue_delay_microseconds: 5_000_000 });

/** a fast model: every batch ends as soon as it starts */
function finishAll(h: SeqHarness): void {
  h.exec.drain();
}

/**
 * The dyna qa's first four sequences at t=0 (1004 sends its second request 3 s later): batch 1 runs at
 * once (preferred 4), then 1001.2 and the ENDs of 1002 and 1003 are issued (3 < 4: they wait); at t=2 s.
 */
async function dynaBacklogStart(): Promise<SeqHarness> {
  const h = new SeqHarness(dyna());
  await h.start();
  sendAll(h, 1001n, [['start', 1], ['', 2], ['end', 3]]);
  sendAll(h, 1002n, [['start', 11], ['end', 13]]);
  sendAll(h, 1003n, [['start', 111], ['end', 113]]);
  h.send(1004n, 'start', 1111);
  finishAll(h);
  h.clock.advanceTo(2_000_000);
  return h;
}

test('L0_dyna_sequence_batcher test_backlog_fill, timed as the qa sends it: {4: 3} (1005 and 1006 wait for the ENDs in flight in their slots)', async () => {
  const h = await dynaBacklogStart();
  const r5 = h.send(1005n, 'start,end', 11111);
  const r6 = h.send(1006n, 'start,end', 22222);
  assert.deepEqual(h.slotsOf(), ['1001', '1005', '1006', '1004'], 'the free slots 1 and 2, their ENDs still in flight');
  h.clock.advanceTo(3_000_000);
  h.send(1004n, '', 1112);
  h.send(1004n, 'end', 1113);
  finishAll(h);
  assert.deepEqual(h.exec.compositions(), BACKLOG_FILL_BATCHES);
  assert.deepEqual(h.batchStats(), { 4: 3 });
  assert.equal(h.inferenceCount(), 12);
  assert.equal(h.answer(r5)?.result, 11111);
  assert.equal(h.answer(r6)?.result, 22222);
});

test('L0_dyna_sequence_batcher test_backlog_fill_no_end: {4: 3, 1: 2}, the last of 1006 alone after the delay', async () => {
  const h = await dynaBacklogStart();
  h.send(1005n, 'start,end', 11111);
  h.send(1006n, 'start', 22222);
  h.send(1006n, '', 22223);
  h.clock.advanceTo(3_000_000);
  h.send(1004n, '', 1112);
  h.send(1004n, 'end', 1113);
  finishAll(h); // batches 2 and 3; 1006.22223 is issued alone and waits for the delay
  h.clock.advanceTo(4_000_000);
  const end = h.send(1006n, 'end', 22224);
  h.clock.advanceTo(8_000_000);
  finishAll(h);
  h.clock.advanceTo(13_000_000);
  finishAll(h);
  assert.deepEqual(h.exec.compositions().slice(3), [['1006:22223'], ['1006:22224']]);
  assert.deepEqual(h.batchStats(), { 4: 3, 1: 2 });
  assert.equal(h.inferenceCount(), 14);
  assert.equal(h.answer(end)?.result, 66669);
  const starts = h.events.flatMap((e) => (e.type === 'batch.started' ? [e.t] : []));
  assert.deepEqual(starts.slice(3), [8_000_000, 13_000_000], 'each waited the 5 s delay from its issue');
});
