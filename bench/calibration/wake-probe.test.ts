import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SchedulerEvent } from '@inferscope/core';
import { RealClock } from '@inferscope/core/clock';
import { MIN_WOKEN_BATCHES, spinWakeProfile, wokenBatchWatcher, type WokenBatch } from './wake-probe';

const base = { model: 'm', version: '1' } as const;
const started = (t: number, id: string, instance = 'm_0', size = 1): SchedulerEvent => ({ type: 'batch.started', t, ...base, batch_id: id, instance, size });
const completed = (t: number, id: string, computeUs: number, instance = 'm_0', size = 1, ok = true): SchedulerEvent =>
  ({ type: 'batch.completed', t, ...base, batch_id: id, instance, size, compute_us: computeUs, ok });
const nextTurn = () => new Promise((r) => setImmediate(r));

test('wokenBatchWatcher: batches sent to an idle instance, with how long it idled and whether a RealClock wait under 1 ms was pending after the post', async () => {
  const w = wokenBatchWatcher('m');
  const clock = new RealClock();
  w.listen(started(1000, 'a'));
  w.listen(completed(1300, 'a', 300)); // the instance's first batch: no idle before it is known
  // posted 2 ms after the answer while waits under 1 ms are pending (re-armed as each fires, so one is
  // pending whatever the machine's speed): the loop turns
  let pending = clock.setTimer(clock.now() + 500, function again() { pending = clock.setTimer(clock.now() + 500, again); });
  w.listen(started(3300, 'b'));
  await nextTurn();
  clock.clearTimer(pending);
  w.listen(started(3350, 'c')); // held behind b: not woken
  w.listen(completed(3700, 'b', 400));
  w.listen(completed(3900, 'c', 200));
  // another model's events are not this watcher's
  w.listen({ type: 'batch.started', t: 4000, model: 'other', version: '1', batch_id: 'x', instance: 'other_0', size: 1 });
  w.listen(started(5000, 'd', 'm_0', 4)); // nothing pending: the main thread may sleep
  await nextTurn();
  w.listen(completed(5250, 'd', 250, 'm_0', 4));
  w.listen(started(6000, 'e'));
  await nextTurn();
  w.listen(completed(6100, 'e', 100, 'm_0', 1, false)); // failed: its time is not a batch's
  assert.deepEqual(w.batches(), [
    { size: 1, idleUs: 2000, spinning: true, postedMs: 3.3, computeUs: 400 },
    { size: 4, idleUs: 1100, spinning: false, postedMs: 5, computeUs: 250 },
  ]);
});

test('spinWakeProfile: post-to-answer time over the table and the cost after idle, for woken batches with the main thread spinning, collections left out', () => {
  const cost = { table: { '1': 100, '4': 160 }, idle_penalty_us: { '0': 0, '1000': 20 } };
  const batches: WokenBatch[] = [];
  for (let i = 0; i < MIN_WOKEN_BATCHES; i++) batches.push({ size: 4, idleUs: 1000, computeUs: 160 + 20 + i * 10, spinning: true, postedMs: i * 10 });
  batches.push({ size: 1, idleUs: 1000, computeUs: 5000, spinning: false, postedMs: 500 }); // asleep after the post
  batches.push({ size: 1, idleUs: 100, computeUs: 5000, spinning: true, postedMs: 510 }); // idled too briefly to sleep
  batches.push({ size: 1, idleUs: 1000, computeUs: 5000, spinning: true, postedMs: 520 }); // met a collection
  const q = spinWakeProfile(batches, cost, [{ start: 520.1, end: 521 }])!;
  assert.equal(q['0'], 0);
  assert.equal(q['1'], (MIN_WOKEN_BATCHES - 1) * 10);
  assert.equal(spinWakeProfile(batches.slice(1), cost, [{ start: 520.1, end: 521 }]), undefined, `fewer than ${MIN_WOKEN_BATCHES}: no profile`);
});
