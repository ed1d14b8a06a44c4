/**
 * The direct strategy on Triton's qa scenarios (L0_sequence_batcher: sequence_batcher_test.py), one instance
 * with max_batch_size 4 unless said otherwise. `holdUntil` is Triton's TRITONSERVER_DELAY_SCHEDULER /
 * TRITONSERVER_BACKLOG_DELAY_SCHEDULER, with the values test.sh sets for each test.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BACKLOG_FILL_BATCHES, SeqHarness, sendAll, sendBacklogFill } from './helpers.ts';
import { seqConfig } from './config.ts';

test('test_simple_sequence: nine requests one after another, each its own batch, the state summing them', async () => {
  const h = new SeqHarness(seqConfig());
  await h.start();
  const values = [1, 2, 3, 4, 5, 6, 7, 8, 9];
  let last = '';
  values.forEach((v, i) => {
    last = h.send(5n, i === 0 ? 'start' : i === 8 ? 'end' : '', v);
    h.exec.finish();
  });
  assert.equal(h.answer(last)?.result, 45);
  assert.deepEqual(h.batchStats(), { 1: 9 });
  assert.equal(h.inferenceCount(), 9);
  const first = h.exec.all[0]!.requests[0]!.step!;
  const end = h.exec.all[8]!.requests[0]!.step!;
  const val = (s: typeof first, n: string) => s.controls.find((c) => c.name === n)!.value;
  assert.deepEqual(['START', 'END', 'READY', 'CORRID'].map((n) => val(first, n)), [1, 0, 1, 5n]);
  assert.deepEqual(['START', 'END', 'READY', 'CORRID'].map((n) => val(end, n)), [0, 1, 1, 5n]);
  assert.equal(h.sched.stateBytes, 0, 'the state is freed at END');
  assert.deepEqual(h.slotsOf(), [null, null, null, null]);
});

test('test_length1_sequence: START and END on one request', async () => {
  const h = new SeqHarness(seqConfig());
  await h.start();
  const r = h.send(99n, 'start,end', 42);
  const step = h.exec.running[0]!.requests[0]!.step!;
  assert.deepEqual(step.controls.map((c) => c.value), [1, 1, 1, 99n]);
  h.exec.finish();
  assert.equal(h.answer(r)?.result, 42);
  assert.deepEqual(h.batchStats(), { 1: 1 });
});

test('test_half_batch: two sequences of four in slots 0 and 1 run as four batches of two', async () => {
  const h = new SeqHarness(seqConfig(), { holdUntil: { requests: 8 } });
  await h.start();
  const a = sendAll(h, 987n, [['start', 1], ['', 2], ['', 3], ['end', 4]]);
  const b = sendAll(h, 988n, [['start', 0], ['', 9], ['', 5], ['end', 13]]);
  assert.deepEqual(h.slotsOf(), ['987', '988', null, null]);
  h.exec.drain();
  assert.deepEqual(h.batchStats(), { 2: 4 });
  assert.equal(h.inferenceCount(), 8);
  assert.equal(h.answer(a[3]!)?.result, 10);
  assert.equal(h.answer(b[3]!)?.result, 27);
});

test('test_skip_batch: the long sequences hold slots 0 and 1, so the last two batches have two positions', async () => {
  const h = new SeqHarness(seqConfig(), { holdUntil: { requests: 12 } });
  await h.start();
  sendAll(h, 1002n, [['start', 11], ['', 12], ['', 13], ['end', 14]]);
  sendAll(h, 1004n, [['start', 1111], ['', 1112], ['', 1113], ['end', 1114]]);
  sendAll(h, 1001n, [['start', 1], ['end', 3]]);
  sendAll(h, 1003n, [['start', 111], ['end', 113]]);
  h.exec.drain();
  assert.deepEqual(h.exec.compositions(), [
    ['1002:11', '1004:1111', '1001:1', '1003:111'],
    ['1002:12', '1004:1112', '1001:3', '1003:113'],
    ['1002:13', '1004:1113'],
    ['1002:14', '1004:1114'],
  ]);
  assert.deepEqual(h.batchStats(), { 4: 2, 2: 2 });
  assert.equal(h.inferenceCount(), 12);
});

test('null requests: empty slots below the highest ready one are padded with READY=0 and CORRID 0, counted in batch statistics only', async () => {
  const h = new SeqHarness(seqConfig(), { holdUntil: { requests: 12 } });
  await h.start();
  sendAll(h, 1001n, [['start', 1], ['end', 3]]);
  sendAll(h, 1003n, [['start', 111], ['end', 113]]);
  const long1 = sendAll(h, 1002n, [['start', 11], ['', 12], ['', 13], ['end', 14]]);
  const long2 = sendAll(h, 1004n, [['start', 1111], ['', 1112], ['', 1113], ['end', 1114]]);
  h.exec.drain();
  assert.deepEqual(h.exec.compositions().slice(2), [['-', '-', '1002:13', '1004:1113'], ['-', '-', '1002:14', '1004:1114']]);
  const pad = h.exec.all[2]!.requests[0]!;
  assert.equal(pad.step!.ready, false);
  assert.deepEqual(pad.step!.controls.map((c) => [c.name, c.value]), [['START', 0], ['END', 0], ['READY', 0], ['CORRID', 0n]]);
  assert.deepEqual(h.batchStats(), { 4: 4 }, 'batch statistics count the nulls');
  assert.equal(h.inferenceCount(), 12, 'inference_count does not');
  assert.equal(h.answer(long1[3]!)?.result, 50, "a null request never touches the sequence's state");
  assert.equal(h.answer(long2[3]!)?.result, 4450);
  const formed = h.events.filter((e) => e.type === 'batch.formed');
  assert.deepEqual(formed.map((e) => e.type === 'batch.formed' && e.request_ids.length), [4, 4, 2, 2], 'a null is no request');
});

test('test_full_batch: four sequences of three, three batches of four', async () => {
  const h = new SeqHarness(seqConfig(), { holdUntil: { requests: 12 } });
  await h.start();
  for (const [id, base] of [[1001n, 1], [1002n, 11], [1003n, 111], [1004n, 1111]] as const) {
    sendAll(h, id, [['start', base], ['', base + 1], ['end', base + 2]]);
  }
  h.exec.drain();
  assert.deepEqual(h.batchStats(), { 4: 3 });
  assert.equal(h.inferenceCount(), 12);
});

test('test_backlog_fill: the two backlogged sequences move into the slots the short sequences free, three batches of four', async () => {
  const h = new SeqHarness(seqConfig(), { holdUntil: { requests: 10, backlog: 2 } });
  await h.start();
  const { r5, r6 } = sendBacklogFill(h);
  assert.deepEqual(h.sched.snapshot().backlog.map((b) => b.sequence.id), ['1005', '1006']);
  h.exec.drain();
  assert.deepEqual(h.exec.compositions(), BACKLOG_FILL_BATCHES);
  assert.deepEqual(h.batchStats(), { 4: 3 });
  assert.equal(h.answer(r5)?.result, 11111);
  assert.equal(h.answer(r6)?.result, 22222);
  assert.equal(h.sched.stateBytes, 0);
});

test('test_backlog and test_backlog_same_correlation_id: the backlog takes the first slot released in the batch (slot 0)', async () => {
  const h = new SeqHarness(seqConfig(), { holdUntil: { requests: 12, backlog: 2 } });
  await h.start();
  sendAll(h, 1001n, [['start', 1], ['', 2], ['end', 3]]);
  const first = sendAll(h, 1002n, [['start', 11], ['', 12], ['end', 13]]);
  sendAll(h, 1003n, [['start', 111], ['', 112], ['end', 113]]);
  sendAll(h, 1004n, [['start', 1111], ['', 1112], ['end', 1113]]);
  // 1002 again: its first sequence's END is queued, so this START is a new sequence, backlogged
  const again = sendAll(h, 1002n, [['start', 11111], ['end', 11113]]);
  h.exec.drain();
  assert.deepEqual(h.exec.compositions().slice(3), [['1002:11111'], ['1002:11113']]);
  assert.deepEqual(h.batchStats(), { 4: 3, 1: 2 });
  assert.equal(h.inferenceCount(), 14);
  assert.equal(h.answer(first[2]!)?.result, 36);
  assert.equal(h.answer(again[1]!)?.result, 22224, 'the second 1002 starts from a fresh state');
});

test('test_queue_delay_*: max_queue_delay_microseconds with minimum_slot_utilization 0, 0.5 and 1', async () => {
  for (const [util, firstAt, secondAt] of [[0, 0, 0], [0.5, 0, 3_000_000], [1, 3_000_000, 6_000_000]] as const) {
    const h = new SeqHarness(seqConfig({ sb: { direct: { max_queue_delay_microseconds: 3_000_000, minimum_slot_utilization: util } } }), { holdUntil: { requests: 2 } });
    await h.start();
    const starts: number[] = [];
    h.bus.on((e) => { if (e.type === 'batch.started') starts.push(e.t); });
    h.send(1001n, 'start', 1);
    h.send(1002n, 'start', 11);
    h.clock.advanceTo(firstAt);
    assert.equal(h.exec.running.length, 1, `util ${util}: the first batch goes at ${firstAt}`);
    h.clock.advanceTo(firstAt + 1);
    h.send(1002n, '', 12);
    h.exec.finish();
    h.clock.advanceTo(secondAt + 1);
    assert.equal(h.exec.running.length, 1, `util ${util}: the second batch goes at ${secondAt + 1}`);
    h.exec.finish();
    assert.deepEqual(h.exec.compositions(), [['1001:1', '1002:11'], ['-', '1002:12']], `util ${util}`);
    assert.deepEqual(starts, [firstAt, secondAt + 1], `util ${util}`);
    assert.deepEqual(h.batchStats(), { 2: 2 });
    assert.equal(h.inferenceCount(), 3);
  }
});

test('several instances: sequences spread over the instances first (lowest free slot index, then instance order), each bound to its instance', async () => {
  const h = new SeqHarness(seqConfig({ maxBatch: 2, instances: 2 }));
  await h.start();
  h.send(1n, 'start', 1);
  h.send(2n, 'start', 2);
  h.send(3n, 'start', 3);
  const snap = h.sched.snapshot();
  assert.deepEqual(snap.instances.map((i) => i.slots.map((s) => s.sequence?.id ?? null)), [['1', '3'], ['2', null]]);
  h.exec.drain();
  h.send(3n, 'end', 30);
  assert.equal(h.exec.running[0]!.instance.name, snap.instances[0]!.name, 'sequence 3 runs where it started');
  assert.deepEqual(h.exec.running[0]!.requests.map((r) => r.step!.slot), [0, 1], 'slot 1 with a null at slot 0');
});

test('test_backlog_fill_no_end: 1006 follows 1003 into slot 2 and finishes alone with nulls below it ({4: 3, 3: 2})', async () => {
  const h = new SeqHarness(seqConfig(), { holdUntil: { requests: 10, backlog: 3 } });
  await h.start();
  sendAll(h, 1001n, [['start', 1], ['', 2], ['end', 3]]);
  sendAll(h, 1002n, [['start', 11], ['end', 13]]);
  sendAll(h, 1003n, [['start', 111], ['end', 113]]);
  sendAll(h, 1004n, [['start', 1111], ['', 1112], ['end', 1113]]);
  sendAll(h, 1005n, [['start,end', 11111]]);
  sendAll(h, 1006n, [['start', 22222], ['', 22223]]);
  h.exec.drain();
  h.clock.advance(2_000_000);
  const end = h.send(1006n, 'end', 22224);
  h.exec.drain();
  assert.deepEqual(h.exec.compositions(), [
    ...BACKLOG_FILL_BATCHES.slice(0, 2),
    ['1001:3', '1005:11111', '1006:22222', '1004:1113'],
    ['-', '-', '1006:22223'],
    ['-', '-', '1006:22224'],
  ]);
  assert.deepEqual(h.batchStats(), { 4: 3, 3: 2 });
  assert.equal(h.inferenceCount(), 14);
  assert.equal(h.answer(end)?.result, 66669);
});

test('test_backlog_same_correlation_id_no_end: a START on the live id ends the short sequence early, in its slot ({4: 4})', async () => {
  const h = new SeqHarness(seqConfig(), { holdUntil: { requests: 16 } });
  await h.start();
  const short = sendAll(h, 1001n, [['start', 1], ['', 3]]);
  for (const [id, base] of [[1002n, 11], [1003n, 111], [1004n, 1111]] as const) {
    sendAll(h, id, [['start', base], ['', base + 1], ['', base + 1], ['end', base + 2]]);
  }
  const again = sendAll(h, 1001n, [['start', 11111], ['end', 11113]]);
  h.exec.drain();
  assert.deepEqual(h.exec.compositions().map((b) => b[0]), ['1001:1', '1001:3', '1001:11111', '1001:11113']);
  assert.deepEqual(h.batchStats(), { 4: 4 });
  assert.equal(h.inferenceCount(), 16);
  assert.equal(h.answer(short[1]!)?.result, 4);
  assert.equal(h.answer(again[1]!)?.result, 22224, 'the restarted sequence starts from a fresh state');
  assert.equal(h.sched.stateBytes, 0);
});

test('test_backlog on two instances of max_batch_size 2: {2: 6, 1: 3}, the backlog taking the first slot released', async () => {
  const h = new SeqHarness(seqConfig({ maxBatch: 2, instances: 2 }), { holdUntil: { requests: 12 } });
  await h.start();
  for (const [id, base] of [[1001n, 1], [1002n, 11], [1003n, 111], [1004n, 1111], [1005n, 11111]] as const) {
    sendAll(h, id, [['start', base], ['', base + 1], ['end', base + 2]]);
  }
  assert.deepEqual(h.sched.snapshot().instances.map((i) => i.slots.map((s) => s.sequence?.id ?? null)), [['1001', '1003'], ['1002', '1004']]);
  h.exec.drain();
  assert.deepEqual(h.batchStats(), { 2: 6, 1: 3 });
  assert.equal(h.inferenceCount(), 15);
  const of1005 = h.exec.all.filter((b) => b.requests.some((r) => r.sequence?.id === 1005n));
  assert.equal(new Set(of1005.map((b) => b.instance.name)).size, 1, 'the backlogged sequence stays on the instance whose slot it took');
});
