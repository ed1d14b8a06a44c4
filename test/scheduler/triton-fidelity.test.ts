/**
 * Traces where InferScope used to part from Triton's dynamic batcher (issue 12), each replayed on the
 * VirtualClock with the outcome Triton's batcher gives (learned from triton core's
 * dynamic_batch_scheduler.cc / scheduler_utils.cc and the outcomes qa/L0_batcher asserts).
 * "One instance, 5,000 µs per batch": the batch a ManualExecutor holds is finished at t=5,000.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SchedulerConfigInput } from '@inferscope/core/scheduler/config-input.ts';
import { policyFromConfig } from '@inferscope/core/scheduler/policy.ts';
import { Harness, ManualExecutor, PrefetchExecutor, type RunningBatch } from './helpers.ts';


function harness(config: SchedulerConfigInput, prefetch = true): Harness {
  const exec = prefetch ? new PrefetchExecutor() : new ManualExecutor();
  const h = new Harness(config, exec);
  h.exec = exec;
  return h;
}

/** arrivals at given times: [id, tUs, options] in time order; the clock runs through each */
function arrive(h: Harness, list: [string, number, Record<string, unknown>?][]): void {
  for (const [id, t, opts] of list) {
    h.clock.advanceTo(t);
    h.send(id, opts ?? {});
  }
}

const ids = (b: RunningBatch) => b.requests.map((r) => r.id);

/** finish the running batch at `t` (the clock first runs to t), then let same-time timers fire */
function finishAt(h: Harness, t: number): RunningBatch {
  h.clock.advanceTo(t);
  const b = h.exec.finish(0);
  h.clock.advance(0);
  return b;
}

// ---- 1. no prefetch where Triton has none: priority levels, queue timeouts, max_queue_size ----

test('prefetch only without priority levels and with a queue policy without timeout or override (Triton also needs no max_queue_size)', () => {
  const allowed = (db: object) => policyFromConfig({ max_batch_size: 8, dynamic_batching: db }).prefetch;
  assert.equal(allowed({}), true);
  assert.equal(allowed({ priority_levels: 0, default_queue_policy: { timeout_action: 'DELAY' } }), true);
  assert.equal(allowed({ priority_levels: 1, default_priority_level: 1 }), false, 'any priority_levels > 0, even 1');
  assert.equal(allowed({ priority_levels: 2, default_priority_level: 2 }), false);
  assert.equal(allowed({ default_queue_policy: { default_timeout_microseconds: 1000 } }), false);
  assert.equal(allowed({ default_queue_policy: { allow_timeout_override: true } }), false);
  // as Triton's SupportPrefetching: a formed batch's requests would no longer count toward max_queue_size
  assert.equal(allowed({ default_queue_policy: { max_queue_size: 4 } }), false);
});

test('priority levels: r2 (priority 1) runs before r1 although r1 came first and every instance was busy (no priority inversion)', async () => {
  const h = harness({ max_batch_size: 4, dynamic_batching: { max_queue_delay_microseconds: 0, priority_levels: 2, default_priority_level: 2 } });
  await h.start();
  arrive(h, [['r0', 0, { batchSize: 4 }], ['r1', 100, { batchSize: 4 }], ['r2', 200, { batchSize: 1, priority: 1 }]]);
  h.clock.advance(0);
  assert.equal(h.exec.all.length, 1, 'nothing handed to the busy instance');
  finishAt(h, 5000);
  assert.deepEqual(ids(h.exec.all[1]), ['r2'], 'Triton runs [r2] at 5,000 µs');
  assert.equal(h.of('batch.started')[1].t, 5000);
  finishAt(h, 10_000);
  assert.deepEqual(ids(h.exec.all[2]), ['r1']);
  finishAt(h, 15_000);
  h.assertAllAnsweredOnce(['r0', 'r1', 'r2']);
});

test('REJECT timeout 1,000 µs: r1 is refused at its deadline instead of running past it on a prefetched batch', async () => {
  for (const maxBatch of [1, 8]) {
    const h = harness({ max_batch_size: maxBatch, dynamic_batching: { max_queue_delay_microseconds: 0, default_queue_policy: { default_timeout_microseconds: 1000, timeout_action: 'REJECT' } } });
    await h.start();
    arrive(h, [['r0', 0], ['r1', 100]]);
    h.clock.advanceTo(1100);
    assert.deepEqual(h.outcome('r1')?.error?.message, 'Request timeout expired', `max_batch_size ${maxBatch}`);
    finishAt(h, 5000);
    assert.equal(h.exec.all.length, 1, 'r1 never ran');
    h.assertAllAnsweredOnce(['r0', 'r1']);
  }
});

test('max_queue_size 1: of three requests back to back, the third is refused ("Exceeds maximum queue size")', async () => {
  const h = harness({ max_batch_size: 1, dynamic_batching: { default_queue_policy: { max_queue_size: 1 } } });
  await h.start();
  arrive(h, [['r0', 0], ['r1', 10], ['r2', 20]]);
  assert.deepEqual(h.outcome('r2')?.error, { reason: 'queue_full', message: 'Exceeds maximum queue size', httpStatus: 503 });
  finishAt(h, 5000);
  finishAt(h, 10_000);
  assert.deepEqual(h.exec.all.map(ids), [['r0'], ['r1']]);
  h.assertAllAnsweredOnce(['r0', 'r1', 'r2']);
});

test('L0_model_queue test_max_queue_size: preferred [4, 8], max_queue_size 8, ten requests behind a running 8: exactly two refused', async () => {
  for (const prefetch of [false, true]) {
    const h = harness({ max_batch_size: 32, dynamic_batching: { preferred_batch_size: [4, 8], default_queue_policy: { max_queue_size: 8 } } }, prefetch);
    await h.start();
    h.send('r0', { batchSize: 8 });
    const rest = Array.from({ length: 10 }, (_, i) => {
      h.clock.advanceTo(500_000 + i * 50);
      return h.send(`q${i}`);
    });
    const refused = rest.filter((id) => h.outcome(id)?.error?.message === 'Exceeds maximum queue size');
    assert.deepEqual(refused, ['q8', 'q9'], `prefetch ${prefetch}: the eight waiting fill the queue`);
    assert.equal(h.of('batch.formed').length, 1, 'nothing is formed while r0 runs: Triton does not prefetch with max_queue_size');
    for (let t = 1_000_000; h.exec.running.length; t += 1_000_000) finishAt(h, t);
    assert.deepEqual(h.exec.sizes(), [8, 8], `prefetch ${prefetch}: Triton's [8, 8]`);
    h.assertAllAnsweredOnce(['r0', ...rest]);
  }
});

// ---- 2. a pending batch at or above the largest preferred size goes at once ----

test('test_static_batch_gt_max_preferred: one request of 5 with preferred [4] is sent at once, not after the delay', async () => {
  const h = harness({ max_batch_size: 8, dynamic_batching: { preferred_batch_size: [4], max_queue_delay_microseconds: 1000 } }, false);
  await h.start();
  h.send('r0', { batchSize: 5 });
  assert.equal(h.exec.all.length, 1, 'sent at t=0');
  assert.equal(h.of('batch.formed')[0].t, 0);
  // Triton's own case: preferred [2, 6], a request of 7
  const t = harness({ max_batch_size: 8, dynamic_batching: { preferred_batch_size: [2, 6], max_queue_delay_microseconds: 10_000_000 } }, false);
  await t.start();
  t.send('r7', { batchSize: 7 });
  assert.deepEqual(t.exec.sizes(), [7]);
});

test('test_multi_batch_gt_max_preferred (fixed and variable shapes): 3 waits, a 7 arrives, both go without the delay', async () => {
  for (const shapes of [['', ''], ['a', 'b']]) {
    const h = harness({ max_batch_size: 8, dynamic_batching: { preferred_batch_size: [2, 6], max_queue_delay_microseconds: 10_000_000 } }, false);
    await h.start();
    h.send('r3', { batchSize: 3, shapeKey: shapes[0] });
    assert.equal(h.exec.all.length, 0, '3 is no preferred size: it waits');
    h.clock.advanceTo(1_000_000);
    h.send('r7', { batchSize: 7, shapeKey: shapes[1] });
    assert.deepEqual(h.exec.sizes(), [3], `the 3 goes when the 7 arrives (shapes ${shapes})`);
    h.clock.advance(0);
    assert.equal(h.of('batch.formed').length, 1, 'the 7 waits as a saturated payload, formed when the instance takes it');
    finishAt(h, 1_001_000);
    assert.deepEqual(h.exec.sizes(), [3, 7], 'the 7 goes as soon as the instance is free');
    assert.equal(h.of('batch.started')[1].t, 1_001_000);
    finishAt(h, 1_002_000);
    h.assertAllAnsweredOnce(['r3', 'r7']);
  }
});

// ---- 3. DELAY: equal deadlines keep arrival order ----

test('DELAY, max_batch_size 2: three requests whose deadlines pass together form [r1, r2], in arrival order', async () => {
  for (const n of [3, 5, 9]) {
    const h = harness({ max_batch_size: 2, dynamic_batching: { default_queue_policy: { default_timeout_microseconds: 1000, timeout_action: 'DELAY' } } }, false);
    await h.start();
    h.send('r0', { batchSize: 2 });
    const rs = Array.from({ length: n }, (_, i) => h.send(`r${i + 1}`));
    h.clock.advanceTo(2000);
    assert.equal(h.of('request.delayed').length, n);
    assert.deepEqual(h.of('request.delayed').map((e) => e.request_id), rs, 'delayed in arrival order');
    finishAt(h, 5000);
    assert.deepEqual(ids(h.exec.all[1]), ['r1', 'r2']);
    while (h.exec.running.length) finishAt(h, h.clock.now() + 1000);
    assert.deepEqual(h.exec.all.slice(1).flatMap(ids), rs, 'every batch in arrival order');
  }
});

// ---- 4. a huge priority_levels ----

test('priority_levels 4294967296 (valid in Triton): no throw, no memory per level, snapshots list only levels in use', async () => {
  const levels = 4294967296;
  const h = harness({ max_batch_size: 1, dynamic_batching: { priority_levels: levels, default_priority_level: levels, priority_queue_policy: { '7': { max_queue_size: 1 } } } }, false);
  await h.start();
  h.send('busy');
  h.send('low');
  h.send('top', { priority: 1 });
  h.send('mid', { priority: 7 });
  h.send('mid2', { priority: 7 });
  h.send('odd', { priority: levels + 1 });
  assert.equal(h.outcome('mid2')?.error?.reason, 'queue_full', 'the policy of level 7 applies');
  const depth = h.sched.snapshot().queue_depth;
  assert.deepEqual(depth, { '1': 1, '7': 1, [String(levels)]: 2 });
  for (let i = 0; i < 5; i++) finishAt(h, (i + 1) * 1000);
  assert.deepEqual(h.exec.all.map((b) => ids(b)[0]), ['busy', 'top', 'mid', 'low', 'odd']);
  assert.deepEqual(h.sched.snapshot().queue_depth, {}, 'empty levels are not listed');
  h.assertAllAnsweredOnce(['busy', 'low', 'top', 'mid', 'mid2', 'odd']);
  // a live change of priority_levels keeps every request and its service order
  h.send('a');
  h.send('b', { priority: 3 });
  h.send('c', { priority: 2 });
  h.sched.updateDynamicBatching({ priority_levels: 2, default_priority_level: 2, priority_queue_policy: {} }, 'test');
  assert.deepEqual(h.sched.snapshot().queue_depth, { '2': 2 }, 'a ran at once; b (level 3) now has the default level 2, like c');
  finishAt(h, 10_000);
  finishAt(h, 11_000);
  assert.deepEqual(h.exec.all.slice(5).map((b) => ids(b)[0]), ['a', 'b', 'c']);
});

test("L0_model_queue test_max_priority_levels: with 4294967296 levels a priority-1 request joins the head's preferred batch", async () => {
  const top = 4294967296;
  const h = harness({ max_batch_size: 32, dynamic_batching: { preferred_batch_size: [4, 8], max_queue_delay_microseconds: 10_000_000, priority_levels: top, default_priority_level: top } });
  await h.start();
  arrive(h, [['r0', 0, { batchSize: 2 }], ['r1', 100_000, { batchSize: 1, priority: top }], ['r2', 300_000, { batchSize: 2, priority: 1 }]]);
  assert.deepEqual(h.exec.all.map(ids), [['r2', 'r0']], 'r2 goes first and makes the preferred 4 with r0');
  finishAt(h, 400_000);
  h.clock.advanceTo(10_099_999);
  assert.equal(h.exec.all.length, 1, 'r1 waits the whole delay');
  h.clock.advanceTo(10_100_000);
  assert.deepEqual(h.exec.all.map(ids), [['r2', 'r0'], ['r1']]);
});

// ---- 5. what prefetch used to cost ----

test('test_max_queue_delay_only_default: delay 0, requests arriving while the instance is busy batch together (2 executions, not 3)', async () => {
  const h = harness({ max_batch_size: 16, dynamic_batching: {} });
  await h.start();
  const all = [h.send('r0')];
  for (let i = 1; i < 12; i++) {
    h.clock.advanceTo(i * 100);
    all.push(h.send(`r${i}`));
  }
  finishAt(h, 5000);
  assert.deepEqual(h.exec.sizes(), [1, 11], 'the first request, then everything that came while it ran');
  finishAt(h, 10_000);
  h.assertAllAnsweredOnce(all);
});

test('a batch that would still grow is not formed for a busy instance (only lent as it stands): after the delay it keeps growing until one is free', async () => {
  const h = harness({ max_batch_size: 16, dynamic_batching: { preferred_batch_size: [8, 16], max_queue_delay_microseconds: 1000 } });
  await h.start();
  for (let i = 0; i < 8; i++) h.send(`a${i}`);
  assert.deepEqual(h.exec.sizes(), [8]);
  arrive(h, [['b0', 100], ['b1', 200]]);
  h.clock.advanceTo(2000); // b0 has waited past the delay: Triton's queued payload still grows
  arrive(h, [['b2', 3000], ['b3', 4000]]);
  finishAt(h, 5000);
  assert.deepEqual(h.exec.sizes(), [8, 4]);
  assert.equal(h.of('batch.formed')[1].trigger, 'delay');
  // nor is a smaller preferred size reached while busy: Triton's payload at 8 may still grow into 16
  for (let i = 0; i < 8; i++) h.send(`c${i}`);
  h.clock.advance(0);
  const formedSizes = () => h.of('batch.formed').map((e) => e.size);
  assert.deepEqual(formedSizes(), [8, 4], 'c0-c7 (preferred 8 of [8, 16], delay 1000) stay in the queue');
  assert.equal(h.sched.snapshot().pending?.requests, 8);
  // they wait as a queued payload, lent to the busy instance as it stands
  assert.deepEqual(h.sched.snapshot().payloads, { count: 1, requests: 8, lent_requests: 8 });
  assert.deepEqual(ids(h.exec.all[2]), ['c0', 'c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7'], 'lent to the busy instance as they stand');
  for (let i = 0; i < 8; i++) h.send(`d${i}`);
  h.clock.advance(0);
  assert.deepEqual((h.exec as PrefetchExecutor).reclaimed.at(-1), ['c0', 'c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7'], 'the queue changed: the loan is taken back');
  finishAt(h, 6000);
  assert.deepEqual(formedSizes(), [8, 4, 16], 'grown to the largest preferred size while the instance was busy');
  assert.deepEqual(h.exec.sizes(), [8, 4, 16], 'and that is what ran');
});

test('VirtualClock: fractional arrival times and delays never livelock, and the delay is kept', async () => {
  const h = harness({ max_batch_size: 8, dynamic_batching: { max_queue_delay_microseconds: 4009 } }, false);
  await h.start();
  h.clock.advanceTo(15768.905893856821); // (t + 4009) - t < 4009 in floating point
  h.send('r0');
  const fired = h.clock.runUntilIdle(1000);
  assert.ok(fired < 10, `${fired} timers`);
  assert.equal(h.exec.all.length, 1);
  assert.ok(h.of('batch.formed')[0].t >= 15768.905893856821 + 4009 - 1e-6);
  assert.equal(h.of('batch.formed')[0].trigger, 'delay');
});

// ---- a payload queued at a smaller preferred size (issue 55: followed, no longer a difference) ----

test("a batch queued at a smaller preferred size takes a later request only once that request's own delay runs out", async () => {
  // one instance busy until 2000; b, c at 100 reach preferred 2 of [2, 4] (delay 1000: not saturated, the
  // payload keeps growing); d at 1500 would make 3, no preferred size, so it joins only once it has waited
  // 1000 µs (2500): the instance takes [b, c] at 2000, then [d] (payloads.ts, as Triton's batcher).
  for (const prefetch of [false, true]) {
    const h = harness({ max_batch_size: 8, dynamic_batching: { preferred_batch_size: [2, 4], max_queue_delay_microseconds: 1000 } }, prefetch);
    await h.start();
    h.send('a', { batchSize: 4 });
    arrive(h, [['b', 100], ['c', 100], ['d', 1500]]);
    h.clock.advance(0);
    assert.equal(h.of('batch.formed').length, 1, 'nothing formed while the instance is busy');
    finishAt(h, 2000);
    assert.deepEqual(ids(h.exec.all[1]), ['b', 'c'], `prefetch ${prefetch}`);
    assert.equal(h.of('batch.formed')[1].trigger, 'preferred');
    finishAt(h, 5000);
    assert.deepEqual(ids(h.exec.all[2]), ['d'], `prefetch ${prefetch}`);
    finishAt(h, 6000);
    h.assertAllAnsweredOnce(['a', 'b', 'c', 'd']);
  }
});
