/**
 * Prefetch (Executor.prefetch): while an instance runs a batch, the scheduler may hand it the oldest queued
 * payload (lent, still queued: it is formed when the instance begins it), taken back when it grows, when a
 * later payload could be merged into it, or when another instance frees up first. All on the VirtualClock
 * through the Harness; a timer armed "at now" fires on `clock.advance(0)`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SchedulerEvent } from '@inferscope/core/events.ts';
import type { SchedulerConfigInput } from '@inferscope/core/scheduler/config-input.ts';
import type { InstanceInfo, SchedulerRequest } from '@inferscope/core/scheduler/types.ts';
import { Harness, ManualExecutor, PrefetchExecutor, tick, type RunningBatch } from './helpers.ts';

/**
 * Fails a batch handed to an instance that already holds one (a prefetched batch) synchronously, inside
 * executeWithCallback, as an executor that cannot queue it would.
 */
class RefusingPrefetchExecutor extends PrefetchExecutor {
  refused: RunningBatch[] = [];
  override executeWithCallback(instance: InstanceInfo, requests: readonly SchedulerRequest<string>[], done: RunningBatch['done']): void {
    if (this.running.some((b) => b.instance.name === instance.name)) {
      this.refused.push({ instance, requests, done });
      done(new Error('cannot queue'));
      return;
    }
    super.executeWithCallback(instance, requests, done);
  }
}

function prefetchHarness(config: SchedulerConfigInput, exec: ManualExecutor = new PrefetchExecutor()): Harness {
  const h = new Harness(config, exec);
  h.exec = exec;
  return h;
}

const ids = (b: RunningBatch) => b.requests.map((r) => r.id);
const instanceView = (h: Harness, name: string) => h.sched.snapshot().instances.find((i) => i.name === name);
const batchOf = (h: Harness, requestId: string) => h.of('batch.formed').find((e) => e.request_ids.includes(requestId))!.batch_id;
/** the batch events of one batch, in order: 'formed' / 'started' / 'completed' */
function lifecycleOf(h: Harness, batchId: string): string[] {
  return h.events
    .filter((e): e is Extract<SchedulerEvent, { batch_id: string }> => e.type.startsWith('batch.') && (e as { batch_id?: string }).batch_id === batchId)
    .map((e) => e.type.slice('batch.'.length));
}

test('without prefetch nothing is formed while the only instance is busy', async () => {
  const h = new Harness({ max_batch_size: 8, dynamic_batching: { max_queue_delay_microseconds: 0 } });
  await h.start();
  h.send('a');
  assert.equal(h.exec.all.length, 1);
  for (const p of ['b', 'c', 'd']) h.send(p);
  h.clock.advance(0);
  h.clock.advance(10_000);
  assert.equal(h.exec.all.length, 1, 'no batch handed to a busy instance');
  assert.equal(h.of('batch.formed').length, 1);
  assert.equal(h.sched.snapshot().pending?.requests, 3, 'the pending batch keeps growing');
  // it waits as a queued payload (this executor takes no loans)
  assert.deepEqual(h.sched.snapshot().payloads, { count: 1, requests: 3, lent_requests: 0 });
  h.exec.finish();
  assert.deepEqual(h.exec.sizes(), [1, 3]);
  h.exec.finish();
  h.assertAllAnsweredOnce(['a', 'b', 'c', 'd']);
});

test('prefetch: a burst while the instance runs A becomes ONE batch, handed over at the same-time timer; it starts when A ends', async () => {
  const h = prefetchHarness({ max_batch_size: 8, dynamic_batching: { preferred_batch_size: [2, 5], max_queue_delay_microseconds: 0 } });
  await h.start();
  h.send('a');
  assert.equal(h.exec.all.length, 1, 'an idle instance still gets its batch synchronously');
  const A = h.exec.all[0];
  h.clock.advance(100);
  for (const p of ['b', 'c', 'd', 'e', 'f']) h.send(p);
  assert.equal(h.exec.all.length, 1, 'arrivals do not form a batch synchronously');
  assert.equal(h.of('batch.formed').length, 1);
  assert.equal(h.clock.nextTimerAt(), 100, 'a timer is armed at the current time');

  h.clock.advance(0);
  assert.equal(h.exec.all.length, 2, 'the timer hands the busy instance its next batch');
  const B = h.exec.all[1];
  assert.deepEqual(ids(B), ['b', 'c', 'd', 'e', 'f'], 'one batch holds the whole burst');
  assert.equal(B.instance.name, A.instance.name);
  const aId = batchOf(h, 'a');
  assert.equal(h.of('batch.formed').length, 1, 'a queued payload handed early (lent): formed only when the instance begins it');
  assert.equal(h.of('batch.formed').find((e) => e.batch_id === aId)!.next_on, undefined, 'an idle instance took A at once');
  assert.equal(instanceView(h, 'm_0_0')?.batch_id, aId, 'the instance still runs A');

  // A ends at t=600: B starts then, the instance never idles in between.
  h.clock.advance(500);
  h.send('g'); // no room behind A any more: a second payload, queued unheld
  h.send('x');
  h.clock.advance(0);
  assert.equal(h.exec.all.length, 2, 'depth 1: nothing more is handed over while A runs');
  assert.equal(h.of('batch.formed').length, 1, 'g,x wait as a payload (preferred 2, delay 0: it cannot grow)');
  const stateEventsBefore = h.of('instance.state').length;
  // observe the instance from inside A's answers (they go out after the instance moved on)
  let seenInAnswer: { state: string; batch?: string } | undefined;
  const unwatch = h.bus.on((e) => {
    if (e.type === 'request.completed' && e.request_id === 'a') {
      const v = instanceView(h, 'm_0_0');
      seenInAnswer = v && { state: v.state, batch: v.batch_id };
    }
  });
  h.exec.finish(0);
  unwatch();
  const bId = batchOf(h, 'b');
  assert.deepEqual(h.of('batch.formed').find((e) => e.batch_id === bId)!.next_on, 'm_0_0', 'formed as the instance that held it began it');
  assert.deepEqual(seenInAnswer, { state: 'busy', batch: bId }, 'when A is answered the instance already runs B');
  assert.deepEqual(lifecycleOf(h, aId), ['formed', 'started', 'completed']);
  assert.deepEqual(lifecycleOf(h, bId), ['formed', 'started']);
  const bStarted = h.of('batch.started').find((e) => e.batch_id === bId)!;
  assert.equal(bStarted.t, 600);
  assert.equal(bStarted.instance, 'm_0_0');
  const evs = h.events.map((e) => e.type + ':' + ((e as { batch_id?: string }).batch_id ?? ''));
  assert.ok(evs.indexOf(`batch.completed:${aId}`) < evs.indexOf(`batch.started:${bId}`), 'B starts after A completed');
  assert.equal(h.of('instance.state').length, stateEventsBefore, 'no instance.state change (never idle) between A and B');
  assert.equal(instanceView(h, 'm_0_0')?.state, 'busy');
  assert.equal(h.exec.all.length, 3, 'once B began, the oldest queued payload (g,x) is handed early in its place');
  assert.deepEqual(ids(h.exec.all[2]), ['g', 'x']);
  assert.equal(h.outcome('a')?.result, 'ok:a');
  h.clock.advance(50);
  while (h.exec.running.length) h.exec.finish(0);
  h.assertAllAnsweredOnce(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'x']);
  assert.ok(['b', 'c', 'd', 'e', 'f', 'g', 'x'].every((id) => h.outcome(id)?.result === `ok:${id}`));
});

test('prefetch respects preferred sizes and max_batch_size; a batch handed over can no longer grow', async () => {
  const h = prefetchHarness({ max_batch_size: 8, dynamic_batching: { preferred_batch_size: [4], max_queue_delay_microseconds: 0 } });
  await h.start();
  h.send('a');
  for (let i = 0; i < 6; i++) h.send(`p${i}`);
  h.clock.advance(0);
  assert.deepEqual(h.exec.sizes(), [1, 4], 'the burst is capped at the preferred size');
  h.send('late');
  h.clock.advance(0);
  assert.deepEqual(h.exec.sizes(), [1, 4], 'depth 1: no second prefetched batch');
  assert.deepEqual(ids(h.exec.all[1]), ['p0', 'p1', 'p2', 'p3'], 'the handed-over batch did not grow');
  while (h.exec.running.length) {
    h.exec.finish(0);
    h.clock.advance(0);
  }
  assert.deepEqual(h.exec.sizes(), [1, 4, 3]);
  assert.equal(h.of('batch.formed')[1].trigger, 'preferred');
  h.assertAllAnsweredOnce(['a', 'p0', 'p1', 'p2', 'p3', 'p4', 'p5', 'late']);

  const m = prefetchHarness({ max_batch_size: 4, dynamic_batching: { max_queue_delay_microseconds: 0 } });
  await m.start();
  m.send('a');
  for (let i = 0; i < 6; i++) m.send(`q${i}`, { batchSize: 1 });
  m.clock.advance(0);
  assert.deepEqual(m.exec.sizes(), [1, 4]);
  m.exec.finish(0);
  assert.equal(m.of('batch.formed')[1].trigger, 'max_batch');
  assert.equal(m.sched.snapshot().pending?.requests, 2);
});

test('prefetch with max_queue_delay: a batch whose delay ran out while the instance is busy is queued (lent as it stands) and grows until the instance is free', async () => {
  const h = prefetchHarness({ max_batch_size: 8, dynamic_batching: { max_queue_delay_microseconds: 1000 } });
  await h.start();
  h.send('a');
  h.clock.advance(1000);
  assert.equal(h.exec.all.length, 1, 'A went at its delay');
  h.send('b');
  h.send('c');
  h.clock.advance(0);
  h.clock.advance(1000);
  assert.equal(h.of('batch.formed').length, 1, 'the delay ran out, the instance is busy: a payload is queued, not formed');
  assert.deepEqual(h.exec.all.slice(1).map(ids), [['b', 'c']], 'the wake-up at the delay lent it to the busy instance');
  assert.equal(h.sched.snapshot().pending?.requests, 2);
  assert.equal(h.clock.pending, 0, 'and no timer spins meanwhile');
  h.clock.advance(500);
  h.send('d');
  h.clock.advance(0);
  assert.equal(h.of('batch.formed').length, 1);
  assert.deepEqual(h.exec.all.slice(1).map(ids), [['b', 'c', 'd']], 'd joined the payload (2 is no preferred size): lent again, still queued');
  assert.equal(h.sched.snapshot().pending?.requests, 3);
  h.clock.advance(500); // t=3000
  h.exec.finish(0);
  assert.deepEqual(h.exec.sizes(), [1, 3], 'the batch grew until the instance was free');
  assert.equal(h.of('batch.formed')[1].trigger, 'delay');
  assert.equal(h.of('batch.formed')[1].next_on, 'm_0_0', 'formed as the instance began it, where it had been lent');
  assert.equal(h.of('batch.started')[1].prefetched, true);
  assert.equal(h.of('batch.started')[1].t, 3000);
  h.exec.finish(0);
  h.assertAllAnsweredOnce(['a', 'b', 'c', 'd']);
});

test('only the oldest queued payload is handed early, to one busy instance; the rest wait, oldest first, up to twice the instances', async () => {
  const h = prefetchHarness({ max_batch_size: 2, dynamic_batching: { max_queue_delay_microseconds: 0 }, instance_group: [{ count: 2, kind: 'KIND_CPU' }] });
  await h.start();
  h.send('a');
  h.send('b');
  assert.deepEqual(h.exec.all.map((b) => b.instance.name), ['m_0_0', 'm_0_1'], 'idle instances are served synchronously');
  const all = ['a', 'b'];
  for (const p of ['c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l']) all.push(h.send(p));
  assert.equal(h.exec.all.length, 2);
  h.clock.advance(0);
  // Triton's payload queue: at most 2 x 2 payloads (c,d e,f g,h i,j); k,l wait behind them, formed only when taken
  assert.equal(h.of('batch.formed').length, 2);
  assert.deepEqual(h.exec.all.slice(2).map((b) => [b.instance.name, ids(b)]), [['m_0_0', ['c', 'd']]], 'only the oldest is handed early');
  assert.equal(h.sched.snapshot().pending?.requests, 2);

  // m_0_1 frees first: it takes the oldest (c,d, taken back from m_0_0), and e,f is handed early to m_0_0
  h.exec.finish(1);
  assert.deepEqual((h.exec as PrefetchExecutor).reclaimed, [['c', 'd']]);
  assert.deepEqual(h.exec.running.map((b) => `${b.instance.name}:${ids(b)}`), ['m_0_0:a', 'm_0_1:c,d', 'm_0_0:e,f']);
  // m_0_0 frees: it begins e,f without a hand-off; g,h is handed early (to m_0_1, the one busy longest... the only one busy)
  h.exec.finish(0);
  assert.equal(h.of('batch.started').find((e) => e.batch_id === batchOf(h, 'e'))!.prefetched, true);
  while (h.exec.running.length) h.exec.finish(0);
  h.clock.advance(0);
  while (h.exec.running.length) h.exec.finish(0);
  h.assertAllAnsweredOnce(all);
  assert.ok(all.every((id) => h.outcome(id)?.result === `ok:${id}`));
  const startOrder = h.of('batch.started').map((e) => h.of('batch.formed').findIndex((f) => f.batch_id === e.batch_id));
  assert.deepEqual(startOrder, [...startOrder].sort((x, y) => x - y), 'batches begin in the order they were formed');
  // per instance, batches start in the order they were handed over and never overlap
  for (const name of ['m_0_0', 'm_0_1']) {
    let running: string | null = null;
    for (const e of h.events) {
      if (e.type === 'batch.started' && e.instance === name) {
        assert.equal(running, null, `${name} started ${e.batch_id} while running ${running}`);
        running = e.batch_id;
      } else if (e.type === 'batch.completed' && e.instance === name) {
        assert.equal(e.batch_id, running);
        running = null;
      }
    }
  }
});

test('an executor failing a prefetched batch at once: each request answered once with the error, A completes normally', async () => {
  const exec = new RefusingPrefetchExecutor();
  const h = prefetchHarness({ max_batch_size: 8, dynamic_batching: { preferred_batch_size: [3], max_queue_delay_microseconds: 0 } }, exec);
  await h.start();
  h.send('a');
  h.clock.advance(10);
  for (const p of ['b', 'c', 'd']) h.send(p);
  h.clock.advance(0);
  assert.equal(exec.refused.length, 1);
  const bId = batchOf(h, 'b');
  for (const id of ['b', 'c', 'd']) {
    assert.equal(h.outcome(id)?.error?.reason, 'failed');
    assert.equal(h.outcome(id)?.error?.message, 'cannot queue');
    assert.equal(h.outcome(id)?.error?.httpStatus, 500);
  }
  assert.equal(h.outcome('a'), undefined, 'A still runs');
  assert.deepEqual(lifecycleOf(h, bId), ['formed', 'started', 'completed']);
  const bDone = h.of('batch.completed').find((e) => e.batch_id === bId)!;
  assert.equal(bDone.ok, false);
  assert.equal(bDone.compute_us, 0);
  const completedReqs = h.of('request.completed').filter((e) => ['b', 'c', 'd'].includes(e.request_id));
  assert.equal(completedReqs.length, 3);
  assert.ok(completedReqs.every((e) => !e.ok && e.batch_id === bId));
  assert.equal(instanceView(h, 'm_0_0')?.batch_id, batchOf(h, 'a'), 'the instance still runs A');

  h.clock.advance(90);
  h.exec.finish(0);
  assert.equal(h.outcome('a')?.result, 'ok:a');
  const aDone = h.of('batch.completed').find((e) => e.batch_id === batchOf(h, 'a'))!;
  assert.equal(aDone.ok, true);
  assert.equal(aDone.compute_us, 100);
  assert.equal(instanceView(h, 'm_0_0')?.state, 'idle', 'the failed batch is not left behind A');
  h.assertAllAnsweredOnce(['a', 'b', 'c', 'd']);
  assert.equal(h.sched.stats.failedBatches, 1);

  // the instance still serves (and can hold a prefetched batch again)
  h.send('e');
  assert.equal(h.exec.running.length, 1);
  h.exec.finish(0);
  assert.equal(h.outcome('e')?.result, 'ok:e');
  await h.sched.stop();
});

test('an executor failing a prefetched batch later, still before A ends: answered once, A goes on, no batch left behind', async () => {
  const h = prefetchHarness({ max_batch_size: 8, dynamic_batching: { preferred_batch_size: [1, 2], max_queue_delay_microseconds: 0 } });
  await h.start();
  h.send('a');
  h.send('b');
  h.send('c');
  h.clock.advance(0);
  assert.equal(h.exec.running.length, 2);
  h.clock.advance(40);
  h.exec.fail(1, 'worker gone');
  assert.equal(h.outcome('b')?.error?.message, 'worker gone');
  assert.equal(h.outcome('c')?.error?.reason, 'failed');
  const bId = batchOf(h, 'b');
  assert.deepEqual(lifecycleOf(h, bId), ['formed', 'started', 'completed']);
  // room again behind A: a new arrival is prefetched at the timer
  h.send('d');
  h.clock.advance(0);
  assert.equal(h.exec.running.length, 2);
  assert.deepEqual(ids(h.exec.running[1]), ['d']);
  h.exec.finish(0);
  assert.equal(instanceView(h, 'm_0_0')?.batch_id, batchOf(h, 'd'));
  h.exec.finish(0);
  h.assertAllAnsweredOnce(['a', 'b', 'c', 'd']);
  assert.equal(h.outcome('a')?.result, 'ok:a');
  assert.equal(h.outcome('d')?.result, 'ok:d');
  assert.equal(h.of('batch.started').length, 3);
  assert.equal(h.of('batch.completed').length, 3);
});

test('retiring an instance that holds a prefetched batch: both batches finish and are answered, then it stops', async () => {
  const h = prefetchHarness({ max_batch_size: 1, dynamic_batching: { max_queue_delay_microseconds: 0 }, instance_group: [{ name: 'g', count: 2, kind: 'KIND_CPU' }] });
  await h.start();
  const all = ['a', 'b', 'c'].map((p) => h.send(p));
  h.clock.advance(0);
  h.clock.advance(1);
  all.push(h.send('d'));
  h.clock.advance(0);
  // c is handed early to g_0; d waits formed until c has begun (only the oldest is ever held)
  assert.deepEqual(h.exec.all.map((b) => `${b.instance.name}:${ids(b)}`), ['g_0:a', 'g_1:b', 'g_0:c']);
  h.exec.finish(0); // g_0 ends a, begins c; d (the oldest now) is handed early to g_1
  assert.deepEqual(h.exec.all.map((b) => `${b.instance.name}:${ids(b)}`), ['g_0:a', 'g_1:b', 'g_0:c', 'g_1:d']);
  await h.sched.setInstanceCount('g', 1, 'test');
  assert.equal(instanceView(h, 'g_1')?.state, 'draining');
  assert.deepEqual(h.exec.stopped, []);
  all.push(h.send('e'));
  h.clock.advance(0);
  assert.equal(h.exec.all.length, 4, 'e waits formed: g_1 holds d and retires, g_0 runs c');

  // g_1 finishes b: it goes on with d (not stopped yet), and takes nothing new
  h.exec.finish(h.exec.running.findIndex((b) => ids(b)[0] === 'b'));
  await tick();
  assert.equal(h.outcome('b')?.result, 'ok:b');
  assert.deepEqual(h.exec.stopped, [], 'not stopped while its prefetched batch runs');
  assert.equal(instanceView(h, 'g_1')?.batch_id, batchOf(h, 'd'));
  h.clock.advance(0);
  assert.deepEqual(h.exec.all.slice(4).map((b) => `${b.instance.name}:${ids(b)}`), ['g_0:e'], 'e is handed early to g_0, never to the retiring g_1');
  h.exec.finish(h.exec.running.findIndex((b) => ids(b)[0] === 'd'));
  await tick();
  assert.equal(h.outcome('d')?.result, 'ok:d');
  assert.deepEqual(h.exec.stopped, ['g_1']);
  assert.equal(instanceView(h, 'g_1'), undefined);
  // g_0 serves the rest
  while (h.exec.running.length) {
    h.exec.finish(0);
    h.clock.advance(0);
  }
  h.assertAllAnsweredOnce(all);
  assert.ok(all.every((id) => h.outcome(id)?.result === `ok:${id}`));
  assert.ok(h.exec.all.slice(4).every((b) => b.instance.name === 'g_0'));
});

test('stop() with a running and a prefetched batch drains both, then resolves', async () => {
  const h = prefetchHarness({ max_batch_size: 8, dynamic_batching: { preferred_batch_size: [2], max_queue_delay_microseconds: 0 } });
  await h.start();
  const all = ['a', 'b', 'c'].map((p) => h.send(p));
  h.clock.advance(0);
  assert.equal(h.exec.running.length, 2);
  let stopped = false;
  const stopping = h.sched.stop().then(() => {
    stopped = true;
  });
  h.send('late');
  assert.equal(h.outcome('late')?.error?.reason, 'unavailable');
  await tick();
  assert.equal(stopped, false);
  h.exec.finish(0);
  await tick();
  assert.equal(stopped, false, 'still draining the prefetched batch');
  assert.deepEqual(h.exec.stopped, []);
  h.exec.finish(0);
  await stopping;
  assert.equal(h.sched.currentState, 'stopped');
  h.assertAllAnsweredOnce(all);
  assert.ok(all.every((id) => h.outcome(id)?.result === `ok:${id}`));
  assert.deepEqual(h.exec.stopped, ['m_0_0']);
});

test('stop() with requests still queued behind a prefetched batch flushes them too', async () => {
  const h = prefetchHarness({ max_batch_size: 2, dynamic_batching: { max_queue_delay_microseconds: 1e6 } });
  await h.start();
  const all = ['a', 'b', 'c', 'd', 'e'].map((p) => h.send(p));
  h.clock.advance(0);
  assert.deepEqual(h.exec.sizes(), [2, 2]);
  const stopping = h.sched.stop();
  for (let k = 0; k < 10 && h.exec.running.length; k++) {
    h.exec.finish(0);
    h.clock.advance(0);
  }
  await stopping;
  h.assertAllAnsweredOnce(all);
  assert.deepEqual(h.exec.sizes(), [2, 2, 1]);
  assert.equal(h.of('batch.formed')[2].trigger, 'drain');
});

test("a prefetched batch's queue time runs until it started, not until it was formed", async () => {
  const h = prefetchHarness({ max_batch_size: 8, dynamic_batching: { preferred_batch_size: [1], max_queue_delay_microseconds: 0 } });
  await h.start();
  h.send('a'); // t=0, starts at once
  h.clock.advance(200);
  h.send('b'); // t=200
  h.clock.advance(100);
  h.send('c'); // t=300: b was handed over at its t=200 timer; c is a payload that waits (only the oldest is held)
  h.clock.advance(0);
  assert.deepEqual(h.exec.all.map(ids), [['a'], ['b']], 'b was handed over at its arrival timer; c waits: depth 1');
  h.clock.advance(700); // t=1000: A ends, B starts
  h.exec.finish(0);
  const bId = batchOf(h, 'b');
  assert.equal(h.of('batch.formed').find((e) => e.batch_id === bId)!.t, 1000, 'formed as the instance began it');
  h.clock.advance(250); // t=1250: B ends
  h.exec.finish(0);
  const rc = (id: string) => h.of('request.completed').find((e) => e.request_id === id)!;
  assert.equal(rc('a').queue_us, 0);
  assert.equal(rc('a').compute_us, 1000);
  assert.equal(rc('b').queue_us, 800, 'queued at 200, started at 1000 (formed at 200)');
  assert.equal(rc('b').compute_us, 250);
  assert.equal(rc('b').total_us, 1050);
  assert.equal(h.of('batch.completed').find((e) => e.batch_id === bId)!.compute_us, 250);
  // c was queued at t=300, handed early behind B at 1000, and formed and started at 1250
  assert.equal(h.of('batch.formed').find((e) => e.request_ids.includes('c'))!.t, 1250);
  h.clock.advance(0);
  h.exec.finish(0);
  assert.equal(rc('c').queue_us, 950);
  assert.equal(rc('c').compute_us, 0);
});

const ReclaimingExecutor = PrefetchExecutor;

test('a batch held behind a slow instance moves to an instance that frees up first (executors with reclaim)', async () => {
  const exec = new ReclaimingExecutor();
  const h = prefetchHarness({ max_batch_size: 2, dynamic_batching: { max_queue_delay_microseconds: 0 }, instance_group: [{ count: 2, kind: 'KIND_CPU' }] }, exec);
  await h.start();
  const all = ['a', 'b'].map((p) => h.send(p));
  h.clock.advance(100);
  all.push(h.send('c'), h.send('d'));
  h.clock.advance(0);
  assert.deepEqual(h.exec.running.map((b) => `${b.instance.name}:${ids(b)}`), ['m_0_0:a', 'm_0_1:b', 'm_0_0:c,d'], 'c,d held behind a on m_0_0');
  h.clock.advance(100);
  h.exec.finish(h.exec.running.findIndex((b) => ids(b)[0] === 'b')); // m_0_1 is free first
  assert.deepEqual(exec.reclaimed, [['c', 'd']]);
  const cd = batchOf(h, 'c');
  const started = h.of('batch.started').find((e) => e.batch_id === cd)!;
  assert.deepEqual([started.instance, started.t], ['m_0_1', 200], 'c,d began on the free instance at once');
  assert.equal(instanceView(h, 'm_0_1')?.batch_id, cd);
  assert.deepEqual(h.exec.running.map((b) => `${b.instance.name}:${ids(b)}`), ['m_0_0:a', 'm_0_1:c,d']);
  exec.given[0].done(new Error('late answer for a batch given back')); // a misbehaving executor: ignored
  assert.equal(h.outcome('c'), undefined);
  h.clock.advance(100);
  while (h.exec.running.length) h.exec.finish(0);
  h.assertAllAnsweredOnce(all);
  assert.ok(all.every((id) => h.outcome(id)?.result === `ok:${id}`));
  assert.deepEqual(lifecycleOf(h, cd), ['formed', 'started', 'completed']);
  assert.equal(h.of('batch.completed').find((e) => e.batch_id === cd)!.instance, 'm_0_1');

  // an executor that says the batch has begun (or will) keeps it where it is
  const keep = new ReclaimingExecutor();
  keep.refuse = true;
  const k = prefetchHarness({ max_batch_size: 2, dynamic_batching: { max_queue_delay_microseconds: 0 }, instance_group: [{ count: 2, kind: 'KIND_CPU' }] }, keep);
  await k.start();
  for (const p of ['a', 'b', 'c', 'd']) k.send(p);
  k.clock.advance(0);
  k.exec.finish(k.exec.running.findIndex((b) => ids(b)[0] === 'b'));
  assert.equal(instanceView(k, 'm_0_1')?.state, 'idle');
  k.exec.finish(0); // a ends: m_0_0 goes on with c,d
  assert.equal(k.of('batch.started').find((e) => e.batch_id === batchOf(k, 'c'))!.instance, 'm_0_0');
  while (k.exec.running.length) k.exec.finish(0);
  k.assertAllAnsweredOnce(['a', 'b', 'c', 'd']);
});

// ---- lending: a batch that could still grow, handed over as it stands (batch-runner.ts) ----

/** preferred [2, 4] with a delay: a 2 reached while the instance is busy could still grow into 4 */
const growable = { max_batch_size: 8, dynamic_batching: { preferred_batch_size: [2, 4], max_queue_delay_microseconds: 5000 } };

/** a (4) runs on the one instance; b,c (a preferred 2 that could still grow) are lent behind it */
async function lentBehindA(exec: ManualExecutor = new PrefetchExecutor()): Promise<Harness> {
  const h = prefetchHarness(growable, exec);
  await h.start();
  h.send('a', { batchSize: 4 });
  h.send('b');
  h.send('c');
  h.clock.advance(0);
  return h;
}

test('lent: a batch that could still grow is handed to the busy instance as it stands; it begins there when the instance frees, formed then', async () => {
  const h = await lentBehindA();
  assert.deepEqual(h.exec.all.map(ids), [['a'], ['b', 'c']], 'b,c lent behind a');
  assert.equal(h.of('batch.formed').length, 1, 'but not formed: it may still grow');
  assert.equal(h.sched.snapshot().pending?.requests, 2, 'and still queued');
  h.clock.advanceTo(1000);
  h.exec.finish(0);
  assert.deepEqual(lifecycleOf(h, batchOf(h, 'b')), ['formed', 'started'], 'formed as its instance began it');
  assert.equal(h.of('batch.started')[1].prefetched, true);
  assert.equal(h.of('batch.formed')[1].oldest_wait_us, 1000);
  assert.equal(h.sched.snapshot().pending, null);
  h.exec.finish(0);
  h.assertAllAnsweredOnce(['a', 'b', 'c']);
  assert.deepEqual(h.exec.sizes(), [4, 2]);
});

test('lent: an arrival that grows the payload takes the loan back and lends the grown batch', async () => {
  const h = await lentBehindA();
  h.send('d');
  h.clock.advance(0);
  assert.deepEqual((h.exec as PrefetchExecutor).reclaimed, [], 'b,c (preferred 2) with d waiting for its delay: the payload stands, and the loan');
  h.send('e');
  h.clock.advance(0);
  assert.deepEqual((h.exec as PrefetchExecutor).reclaimed, [['b', 'c']], 'b..e reach 4: the loan is taken back');
  assert.deepEqual(h.exec.all.slice(1).map(ids), [['b', 'c', 'd', 'e']], 'and the 4 lent in its place (with a delay it may still grow)');
  assert.equal(h.of('batch.formed').length, 1);
  h.exec.finish(0);
  h.exec.finish(0);
  h.assertAllAnsweredOnce(['a', 'b', 'c', 'd', 'e']);
  assert.deepEqual(h.exec.sizes(), [4, 4]);
});

test('lent: the delay running out changes what would be sent (everything pending): the loan is taken back at that moment', async () => {
  const h = prefetchHarness({ max_batch_size: 8, dynamic_batching: { preferred_batch_size: [2, 8], max_queue_delay_microseconds: 1000 } });
  await h.start();
  h.send('a', { batchSize: 8 });
  for (const p of ['b', 'c', 'd']) h.send(p);
  h.clock.advance(0);
  assert.deepEqual(h.exec.all.slice(1).map(ids), [['b', 'c']], 'the preferred 2 is lent');
  h.clock.advance(1000);
  assert.deepEqual((h.exec as PrefetchExecutor).reclaimed, [['b', 'c']], 'at b\'s delay the decision is b,c,d');
  assert.deepEqual(h.exec.all.slice(1).map(ids), [['b', 'c', 'd']]);
  h.exec.finish(0);
  assert.equal(h.of('batch.formed')[1].trigger, 'delay');
  h.exec.finish(0);
  assert.deepEqual(h.exec.sizes(), [8, 3]);
});

test('lent: an instance that raced ahead (the loan cannot be taken back) runs it as lent; nothing is answered twice', async () => {
  const exec = new PrefetchExecutor();
  const h = await lentBehindA(exec);
  exec.refuse = true;
  h.send('d');
  h.send('e');
  h.clock.advance(0);
  assert.deepEqual(h.of('batch.formed').slice(1).map((e) => e.request_ids.join(',')), ['b,c'], 'it had begun: formed as it was lent');
  assert.equal(h.sched.snapshot().pending?.requests, 2, 'd,e wait for the next batch');
  exec.refuse = false;
  h.exec.finish(0);
  h.exec.finish(0);
  h.clock.advance(5000);
  h.exec.finish(0);
  h.assertAllAnsweredOnce(['a', 'b', 'c', 'd', 'e']);
  assert.deepEqual(h.exec.sizes(), [4, 2, 2]);
});

test('lent: a cancelled request leaves the loan (taken back, the rest lent again); unload answers a lent batch exactly once', async () => {
  const h = prefetchHarness(growable);
  await h.start();
  h.send('a', { batchSize: 4 });
  for (const p of ['b', 'c', 'd']) h.send(p);
  h.clock.advance(0);
  assert.equal(h.sched.cancel('b'), true);
  assert.equal(h.outcome('b')?.error?.reason, 'cancelled');
  h.clock.advance(0);
  assert.deepEqual(h.exec.all.slice(1).map(ids), [['c', 'd']], 'c,d lent in its place');
  const stopped = h.sched.stop();
  h.clock.advance(0);
  h.exec.finish(0);
  h.exec.finish(0);
  await stopped;
  h.assertAllAnsweredOnce(['a', 'b', 'c', 'd']);
  assert.deepEqual(h.exec.sizes(), [4, 2]);
});
