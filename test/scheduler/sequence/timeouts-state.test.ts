/**
 * Idle sequences, request timeouts in the backlog, cancellation and implicit state, on the virtual clock
 * (L0_sequence_batcher test_backlog_sequence_timeout, test_request_timeout, test_send_request_after_timeout;
 * L0_implicit_state in spirit). Every test also checks that the state memory returns to zero.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SeqHarness } from './helpers.ts';
import { seqConfig, STATE } from './config.ts';
import { stateSpecs, StateConfigError } from '@inferscope/core/scheduler/sequence/state.ts';

const IDLE = 5_000_000;

test('test_backlog_sequence_timeout: an idle sequence loses its slot to the backlog at max_sequence_idle, and its late request needs START', async () => {
  const h = new SeqHarness(seqConfig({ maxBatch: 1 }));
  await h.start();
  h.send(1001n, 'start', 1);
  h.exec.finish();
  h.clock.advanceTo(1000);
  const b = [h.send(1005n, 'start', 11111), h.send(1005n, 'end', 11113)];
  assert.deepEqual(h.sched.snapshot().backlog, [{ sequence: { id: '1005', type: 'UINT64' }, requests: 2 }]);
  h.clock.advanceTo(IDLE - 1);
  assert.equal(h.exec.running.length, 0, 'not idle yet');
  assert.equal(h.sched.stateBytes, 4);
  h.clock.advanceTo(IDLE);
  assert.deepEqual(h.slotsOf(), ['1005'], 'the backlog took the slot');
  h.exec.drain();
  assert.equal(h.answer(b[1]!)?.result, 22224);
  h.clock.advanceTo(IDLE + 1_000_000);
  const late = h.send(1001n, '', 3);
  assert.equal(h.answer(late)?.error?.message, "inference request for sequence 1001 to model 'm' must specify the START flag on the first request of the sequence");
  assert.equal(h.sched.stateBytes, 0);
  assert.deepEqual(h.slotsOf(), [null]);
});

test('an idle sequence whose requests are still queued: they run first, then its slot is released', async () => {
  const h = new SeqHarness(seqConfig({ maxBatch: 1 }));
  await h.start();
  const first = h.send(1n, 'start', 1);
  const queued = h.send(1n, '', 2); // waits while the first runs
  h.clock.advanceTo(IDLE);
  assert.deepEqual(h.slotsOf(), ['1'], 'the release waits behind the queued request');
  h.exec.finish();
  h.exec.finish();
  assert.equal(h.answer(first)?.result, 1);
  assert.equal(h.answer(queued)?.result, 3);
  h.clock.advance(1);
  assert.deepEqual(h.slotsOf(), [null]);
  assert.equal(h.sched.stateBytes, 0);
});

test('test_request_timeout / test_send_request_after_timeout: a backlogged sequence whose request timeout runs out is refused whole; later requests need START', async () => {
  const h = new SeqHarness(seqConfig({ maxBatch: 1, sb: { max_sequence_idle_microseconds: 60_000_000 } }));
  await h.start();
  const s1 = [h.send(1n, 'start', 1, { timeoutUs: 3_000_000 })];
  h.clock.advanceTo(1_000_000);
  s1.push(h.send(1n, '', 1, { timeoutUs: 3_000_000 }));
  const s2 = [h.send(2n, 'start', 1, { timeoutUs: 3_000_000 }), h.send(2n, '', 1, { timeoutUs: 3_000_000 })];
  h.clock.advanceTo(3_999_999);
  assert.equal(h.answer(s2[0]!), undefined);
  h.clock.advanceTo(4_000_000);
  for (const r of s2) {
    assert.deepEqual(h.answer(r)?.error, { reason: 'timeout', code: 'UNAVAILABLE', message: 'timeout of the corresponding sequence has been expired' });
  }
  assert.deepEqual(h.sched.snapshot().backlog, []);
  const after = h.send(2n, 'end', 1, { timeoutUs: 3_000_000 });
  assert.match(h.answer(after)!.error!.message, /sequence 2 .* must specify the START flag/);
  h.clock.advanceTo(10_000_000);
  s1.push(h.send(1n, 'end', 1, { timeoutUs: 3_000_000 }));
  h.exec.drain();
  assert.deepEqual(s1.map((r) => h.answer(r)?.result), [1, 2, 3], 'a request timeout never touches a sequence holding a slot');
});

test('cancel: a backlogged sequence is cancelled whole; a sequence in a slot ends, its slot passing to the backlog', async () => {
  const h = new SeqHarness(seqConfig({ maxBatch: 1 }));
  await h.start();
  const a = [h.send(1n, 'start', 1), h.send(1n, '', 2)];
  const b = [h.send(2n, 'start', 5), h.send(2n, '', 6)];
  const c = [h.send(3n, 'start', 7), h.send(3n, 'end', 8)];
  assert.equal(h.sched.cancel(b[1]!), true);
  for (const r of b) assert.equal(h.answer(r)?.error?.reason, 'cancelled');
  assert.equal(h.sched.cancel(a[0]!), false, 'a request in a running batch is not cancellable');
  assert.equal(h.sched.cancel(a[1]!), true);
  assert.equal(h.answer(a[1]!)?.error?.code, 'CANCELLED');
  h.exec.finish();
  assert.deepEqual(h.slotsOf(), ['3']);
  h.exec.drain();
  assert.equal(h.answer(c[1]!)?.result, 15);
  assert.match(h.answer(h.send(1n, '', 3))!.error!.message, /must specify the START flag/);
  assert.equal(h.sched.stateBytes, 0);
});

test('a flood of STARTs on four slots: every request answered once, each sequence its own sum, no state left', async () => {
  const h = new SeqHarness(seqConfig());
  await h.start();
  const ends = new Map<bigint, string>();
  for (let i = 1n; i <= 40n; i++) {
    h.send(i, 'start', Number(i));
    ends.set(i, h.send(i, 'end', 1000));
  }
  assert.equal(h.sched.snapshot().backlog.length, 36);
  h.exec.drain();
  for (const [i, r] of ends) assert.equal(h.answer(r)?.result, Number(i) + 1000);
  assert.equal(h.answers.size, 80);
  assert.ok([...h.answers.values()].every((l) => l.length === 1));
  assert.equal(h.sched.stateBytes, 0);
  assert.deepEqual(h.sched.snapshot().state_memory, { sequences: 0, bytes: 0 });
});

test('implicit state: initial_state zero_data and data_file, the batch dimension, bytes counted per live sequence', async () => {
  const init = new Uint8Array(4);
  new DataView(init.buffer).setInt32(0, 100, true);
  const config = seqConfig({ sb: { state: [{ ...STATE![0]!, initial_state: [{ name: 'init', data_type: 'TYPE_INT32', dims: [1], data_file: 'f' }] }] } });
  const h = new SeqHarness(config, { initialStateData: { INPUT_STATE: init } });
  await h.start();
  h.send(1n, 'start', 1);
  h.send(2n, 'start', 2);
  assert.deepEqual(h.exec.running[0]!.requests[0]!.step!.stateIn.INPUT_STATE!.shape, [1, 1]);
  h.exec.drain();
  assert.equal(h.sched.stateBytes, 8, 'two live sequences, 4 bytes each');
  const r = h.send(1n, 'end', 3);
  h.exec.drain();
  assert.equal(h.answer(r)?.result, 104);
  assert.equal(h.sched.stateBytes, 4);

  const specs = stateSpecs([{ ...STATE![0]!, dims: [-1, 3], initial_state: [{ name: 'z', data_type: 'TYPE_INT32', dims: [2, 3], zero_data: true }] }], 0);
  assert.deepEqual(specs[0]!.initial.shape, [2, 3], 'no batch dimension without batching');
  assert.equal(specs[0]!.initial.data.byteLength, 24);
  assert.deepEqual(stateSpecs([{ ...STATE![0]!, dims: [-1, 3] }], 8)[0]!.initial.shape, [1, 1, 3], 'a variable dim starts at 1');
});

test("implicit state config refused with Triton's words", () => {
  const bad = (initial: object, dims: number[] = [1]) => () => stateSpecs([{ ...STATE![0]!, dims, initial_state: [{ name: 'i', data_type: 'TYPE_INT32', dims: [1], zero_data: true, ...initial }] }], 4);
  assert.throws(bad({ data_type: 'TYPE_FP32' }), (e) => e instanceof StateConfigError && e.message === "The data type used for 'initial_state' field of state 'INPUT_STATE' does not match the state data type.");
  assert.throws(bad({ name: '' }), /Field 'name' must be set when using initial_state for state input 'INPUT_STATE'\./);
  assert.throws(bad({ dims: [1, 1] }), /Number of dimensions in 'initial_state' doesn't match the size of 'state' dimensions for state input 'INPUT_STATE'\. 2 != 1/);
  assert.throws(bad({ dims: [-1] }), /'initial_state' field for state input name 'INPUT_STATE' contains variable dimensions\./);
  assert.throws(bad({ dims: [2] }), /'initial_state' dim for input name 'INPUT_STATE' doesn't match 'state' dim description\. 2 != 1/);
  assert.throws(bad({ zero_data: false }), /initial_state setting expects state'INPUT_STATE' to have state_data set/);
  assert.throws(bad({ zero_data: false, data_file: 'x' }), /data_file 'x' of state 'INPUT_STATE' was not provided/);
});
