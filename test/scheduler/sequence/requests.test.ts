/**
 * The sequence batcher's request checks with Triton's words (L0_sequence_batcher test_batch_size,
 * test_no_correlation_id, test_no_sequence_start(2), test_no_sequence_end; L0_sequence_corrid_batcher's id
 * types), correlation ids of both types, control values of every type, and unload.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SeqHarness } from './helpers.ts';
import { CONTROLS, seqConfig } from './config.ts';
import { controlTable, controlValues } from '@inferscope/core/scheduler/sequence/controls.ts';

test('test_batch_size, test_no_correlation_id: batch size 1 only, and an id that is neither 0 nor empty, refused before anything is queued', async () => {
  const h = new SeqHarness(seqConfig());
  await h.start();
  const big = h.send(27n, 'start', 1, { batchSize: 2 });
  const zero = h.send(0n, 'start', 1);
  const none = h.send(undefined, 'start', 1);
  assert.deepEqual(h.answer(big)?.error, { reason: 'invalid', code: 'INVALID_ARG', message: "inference request to model 'm' must specify batch-size 1 due to requirements of sequence batcher" });
  for (const r of [zero, none]) {
    assert.equal(h.answer(r)?.error?.message, "inference request to model 'm' must specify a non-zero or non-empty correlation ID");
  }
  assert.equal(h.exec.all.length, 0);
  assert.equal(h.sched.stats.accepted, 0);
});

test('test_no_sequence_start(2): no START for an unknown id, or after the sequence ended, is refused', async () => {
  const h = new SeqHarness(seqConfig());
  await h.start();
  const lone = h.send(37469245n, '', 1);
  assert.equal(h.answer(lone)?.error?.message, "inference request for sequence 37469245 to model 'm' must specify the START flag on the first request of the sequence");
  const ok = [h.send(3n, 'start', 0), h.send(3n, '', 1), h.send(3n, 'end', 2)];
  const late = h.send(3n, '', 3);
  h.exec.drain();
  assert.equal(h.answer(ok[2]!)?.result, 3);
  assert.match(h.answer(late)!.error!.message, /^inference request for sequence 3 to model 'm' must specify the START flag/);
});

test('test_no_sequence_end: a second START on a live id restarts it in place, from a fresh state', async () => {
  const h = new SeqHarness(seqConfig());
  await h.start();
  h.send(4566n, 'start', 1);
  h.send(4566n, '', 2);
  h.exec.drain();
  const restart = h.send(4566n, 'start', 10);
  assert.deepEqual(h.slotsOf(), ['4566', null, null, null], 'the same slot');
  h.exec.drain();
  const end = h.send(4566n, 'end', 20);
  h.exec.drain();
  assert.equal(h.answer(restart)?.result, 10);
  assert.equal(h.answer(end)?.result, 30);
  assert.ok(h.exec.all.every((b) => b.requests[0]!.step!.slot === 0));
});

test("uint64 and string ids are distinct sequences: 42 and '42' take two slots", async () => {
  const config = seqConfig({ sb: { control_input: CONTROLS!.slice(0, 3) } });
  const h = new SeqHarness(config);
  await h.start();
  h.send(42n, 'start', 1);
  h.send('42', 'start', 100);
  assert.deepEqual(h.sched.snapshot().instances[0]!.slots.slice(0, 2).map((s) => s.sequence), [{ id: '42', type: 'UINT64' }, { id: '42', type: 'STRING' }]);
  h.exec.drain();
  const a = h.send(42n, 'end', 2);
  const b = h.send('42', 'end', 200);
  h.exec.drain();
  assert.equal(h.answer(a)?.result, 3);
  assert.equal(h.answer(b)?.result, 300);
  const big = 2n ** 64n - 1n;
  const r = h.send(big, 'start,end', 5);
  h.exec.drain();
  assert.equal(h.answer(r)?.result, 5, 'an id past 2^53 is exact');
});

test("L0_sequence_corrid_batcher: the id's type against CORRID's data type, in Triton's words", async () => {
  const stringCorrid = seqConfig({ sb: { control_input: [...CONTROLS!.slice(0, 3), { name: 'CORRID', control: [{ kind: 'CONTROL_SEQUENCE_CORRID', data_type: 'TYPE_STRING' }] }] } });
  const h = new SeqHarness(stringCorrid);
  await h.start();
  const wrong = h.send(7n, 'start', 1);
  assert.equal(h.answer(wrong)?.error?.message, "sequence batching control 'CORRID' data-type is 'UINT64', but model 'm' expects 'BYTES'");
  const none = h.send(undefined, 'start', 1);
  assert.match(h.answer(none)!.error!.message, /data-type is 'UINT64', but model 'm' expects 'BYTES'/, 'no id counts as uint64 0, as in Triton');
  h.send('abc', 'start,end', 1);
  assert.deepEqual(h.exec.running[0]!.requests[0]!.step!.controls.at(-1), { name: 'CORRID', kind: 'CORRID', dataType: 'TYPE_STRING', value: 'abc' });

  const u = new SeqHarness(seqConfig());
  await u.start();
  const s = u.send('abc', 'start', 1);
  assert.equal(u.answer(s)?.error?.message, "sequence batching control 'CORRID' data-type is 'BYTES', but model 'm' expects 'UINT64'");
  assert.equal(u.answer(u.send('', 'start', 1))?.error?.message, "sequence batching control 'CORRID' data-type is 'BYTES', but model 'm' expects 'UINT64'");
});

test('control values: fp32, int32 and bool false/true pairs and every CORRID integer type', () => {
  const table = controlTable({
    control_input: [
      { name: 'S', control: [{ kind: 'CONTROL_SEQUENCE_START', fp32_false_true: [0.5, 1.5] }] },
      { name: 'E', control: [{ kind: 'CONTROL_SEQUENCE_END', bool_false_true: [false, true] }] },
      { name: 'R', control: [{ kind: 'CONTROL_SEQUENCE_READY', int32_false_true: [7, 9] }] },
      { name: 'C', control: [{ kind: 'CONTROL_SEQUENCE_CORRID', data_type: 'TYPE_INT32' }] },
    ],
  });
  const at = (ready: boolean, start: boolean, end: boolean, id: bigint) => controlValues(table, { ready, start, end, id }).map((c) => c.value);
  assert.deepEqual(at(true, true, false, 5n), [1.5, false, 9, 5]);
  assert.deepEqual(at(true, false, true, 2n ** 32n + 3n), [0.5, true, 9, 3], 'CORRID INT32 keeps the low 32 bits, as Triton copies them');
  assert.deepEqual(at(true, true, true, 2n ** 31n), [1.5, true, 9, -(2 ** 31)]);
  assert.deepEqual(at(false, true, true, 5n), [0.5, false, 7, 0], 'a null request: everything false, CORRID 0');
  const wide = (dt: string, id: bigint) => controlValues(controlTable({ control_input: [{ name: 'C', control: [{ kind: 'CONTROL_SEQUENCE_CORRID', data_type: dt }] }] }), { ready: true, start: false, end: false, id })[0]!.value;
  assert.equal(wide('TYPE_UINT64', 2n ** 64n - 1n), 2n ** 64n - 1n);
  assert.equal(wide('TYPE_INT64', 2n ** 64n - 1n), -1n);
  assert.equal(wide('TYPE_UINT32', 2n ** 32n + 1n), 1);
});

test('unload: a new sequence is refused with Triton\'s words, live sequences finish, every request is answered once', async () => {
  const h = new SeqHarness(seqConfig());
  await h.start();
  const a = h.send(1n, 'start', 1);
  const stopped = h.sched.stop();
  const b = h.send(1n, 'end', 2);
  const c = h.send(2n, 'start', 1);
  assert.deepEqual(h.answer(c)?.error, { reason: 'unavailable', code: 'UNAVAILABLE', message: 'Server is stopping, scheduler for model has stopped accepting new inference requests' });
  h.exec.drain();
  await stopped;
  assert.equal(h.answer(a)?.result, 1);
  assert.equal(h.answer(b)?.result, 3);
  assert.equal(h.sched.currentState, 'stopped');
  assert.equal(h.sched.stateBytes, 0);
  assert.equal(h.answer(h.send(1n, 'start', 1))?.error?.reason, 'unavailable');
});

test('requests that arrive while the instances start wait in the backlog and take the slots once they are up (both strategies)', async () => {
  for (const sb of [{}, { oldest: { max_candidate_sequences: 2, preferred_batch_size: [2] } }]) {
    const h = new SeqHarness(seqConfig({ maxBatch: 2, sb }));
    // instances that take a moment to start, as a real backend's do (an executor that starts synchronously
    // has its instances, and their slots, up before the first request)
    Object.assign(h.exec, { startInstance: () => Promise.resolve() });
    const started = h.start();
    const a = [h.send(1n, 'start', 1), h.send(1n, 'end', 2)];
    const b = h.send(2n, 'start,end', 5);
    assert.equal(h.sched.snapshot().backlog.length, 2);
    await started;
    assert.deepEqual(h.slotsOf(), ['1', null], 'sequence 2 ended inside the backlog: it holds its slot only while it runs');
    h.exec.drain();
    assert.equal(h.answer(a[1]!)?.result, 3);
    assert.equal(h.answer(b)?.result, 5);
    assert.deepEqual(h.exec.compositions()[0], ['1:1', '2:5']);
  }
});
