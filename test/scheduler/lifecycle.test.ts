import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Harness, tick } from './helpers.ts';

test('updateDynamicBatching takes effect at the next decision and emits config.changed', async () => {
  const h = new Harness({ max_batch_size: 8, dynamic_batching: { max_queue_delay_microseconds: 1e6 } });
  await h.start();
  h.send('a');
  h.send('b');
  h.clock.advance(10);
  assert.equal(h.exec.all.length, 0);
  const changes = h.sched.updateDynamicBatching({ max_queue_delay_microseconds: 0 }, 'test');
  assert.deepEqual(changes, [{ path: 'dynamic_batching.max_queue_delay_microseconds', old: 1e6, new: 0 }]);
  assert.deepEqual(h.exec.sizes(), [2]);
  const ev = h.of('config.changed')[0];
  assert.deepEqual([ev.by, ev.changes[0].new], ['test', 0]);
  assert.equal(h.sched.currentConfig.dynamic_batching?.max_queue_delay_microseconds, 0);
});

test('a bad patch throws a clear error and changes nothing', async () => {
  const h = new Harness({ max_batch_size: 8, dynamic_batching: { max_queue_delay_microseconds: 100 } });
  await h.start();
  assert.throws(() => h.sched.updateDynamicBatching({ preferred_batch_size: [64] }, 't'), /preferred size must be <= max batch size.*preferred_batch_size 64 is larger than max_batch_size 8/);
  assert.throws(() => h.sched.updateDynamicBatching({ bogus: 1 } as never, 't'), /unknown dynamic batching field 'bogus'/);
  assert.throws(() => h.sched.updateDynamicBatching({ max_batch_size: 0 }, 't'), /between 0 and non-zero/);
  assert.equal(h.sched.currentPolicy.maxQueueDelayUs, 100);
  assert.equal(h.of('config.changed').length, 0);
});

test('reconfiguring under load (levels, max_batch_size, ordering) loses no request', async () => {
  const h = new Harness({ max_batch_size: 8, dynamic_batching: { priority_levels: 3, default_priority_level: 3, max_queue_delay_microseconds: 100 } });
  await h.start();
  const ids: string[] = [];
  for (let i = 0; i < 30; i++) ids.push(h.send(`r${i}`, { priority: 1 + (i % 3), batchSize: 1 + (i % 4) }));
  h.sched.updateDynamicBatching({ priority_levels: 2, default_priority_level: 1 }, 't');
  h.sched.updateDynamicBatching({ max_batch_size: 3 }, 't');
  // Triton allows preserve_ordering with one priority level only
  h.sched.updateDynamicBatching({ priority_levels: 1, preserve_ordering: true }, 't');
  for (let i = 30; i < 40; i++) ids.push(h.send(`r${i}`, { priority: 2 }));
  for (let k = 0; k < 100 && (h.exec.running.length || h.sched.snapshot().pending); k++) {
    h.clock.advance(100);
    while (h.exec.running.length) h.exec.finish();
  }
  h.assertAllAnsweredOnce(ids);
  const invalid = ids.filter((id) => h.outcome(id)?.error?.reason === 'invalid');
  assert.ok(invalid.length > 0, 'queued requests larger than the new max_batch_size are refused, not dropped');
  assert.ok(Math.max(...h.exec.sizes().slice(2)) <= 3);
});

test('stop() under load: refuses new requests (unavailable), drains every queued and running one, stops instances', async () => {
  const h = new Harness({ max_batch_size: 4, dynamic_batching: { max_queue_delay_microseconds: 1e6 }, instance_group: [{ count: 2, kind: 'KIND_CPU' }] });
  await h.start();
  const ids: string[] = [];
  for (let i = 0; i < 11; i++) ids.push(h.send(`r${i}`));
  const stopping = h.sched.stop();
  h.send('late');
  assert.deepEqual(h.outcome('late')?.error, { reason: 'unavailable', message: 'model m version 1 is unloading', httpStatus: 503 });
  while (h.exec.running.length) h.exec.finish();
  await stopping;
  assert.deepEqual(h.of('batch.formed').map((b) => b.trigger), ['max_batch', 'max_batch', 'drain'], 'the last 3 go without waiting the delay');
  h.assertAllAnsweredOnce(ids);
  assert.ok(ids.every((id) => h.outcome(id)?.result === `ok:${id}`));
  assert.deepEqual(h.exec.stopped.sort(), ['m_0_0', 'm_0_1']);
  assert.equal(h.sched.currentState, 'stopped');
});

test('instance count up and down under load: new instances take work, removed ones finish their batch first', async () => {
  const h = new Harness({ max_batch_size: 2, dynamic_batching: {}, instance_group: [{ name: 'g', count: 1, kind: 'KIND_CPU' }] });
  await h.start();
  const ids: string[] = [];
  for (let i = 0; i < 6; i++) ids.push(h.send(`r${i}`));
  await h.sched.setInstanceCount('g', 3, 'test');
  assert.deepEqual(h.exec.started, ['g_0', 'g_1', 'g_2']);
  assert.deepEqual(h.exec.running.map((b) => b.instance.name).sort(), ['g_0', 'g_1', 'g_2']);
  await h.sched.setInstanceCount('g', 1, 'test');
  assert.deepEqual(h.of('instance.state').filter((e) => e.state === 'draining').map((e) => e.instance).sort(), ['g_1', 'g_2']);
  assert.deepEqual(h.exec.stopped, [], 'busy instances are not stopped mid-batch');
  for (let i = 6; i < 10; i++) ids.push(h.send(`r${i}`));
  while (h.exec.running.length) h.exec.finish();
  await tick();
  h.assertAllAnsweredOnce(ids);
  assert.deepEqual(h.exec.stopped.sort(), ['g_1', 'g_2']);
  assert.deepEqual(new Set(h.exec.all.slice(3).map((b) => b.instance.name)), new Set(['g_0']));
  assert.deepEqual(h.of('config.changed').map((e) => e.changes[0].new), [3, 1]);
  await assert.rejects(h.sched.setInstanceCount('g', 0, 't'), /'count' must be between 1 and 64, got 0/);
  await assert.rejects(h.sched.setInstanceCount('nope', 1, 't'), /has no instance group 'nope'/);
});

test('GPU groups: count per listed GPU, Triton names, devices round-robin', async () => {
  const h = new Harness({ max_batch_size: 1, instance_group: [{ name: 'mlp_0', kind: 'KIND_GPU', count: 2, gpus: [0, 1] }] });
  await h.start();
  const inst = h.sched.snapshot().instances.map((i) => `${i.name}@${i.device}`);
  assert.deepEqual(inst, ['mlp_0_0@gpu0', 'mlp_0_1@gpu1', 'mlp_0_2@gpu0', 'mlp_0_3@gpu1']);
});

test('start() rejects when no instance can start, and queued requests get unavailable', async () => {
  const h = new Harness({ max_batch_size: 1 }, {
    execute: async () => [],
    startInstance: async () => {
      throw new Error('Failed to load shared library');
    },
  });
  const started = h.sched.start();
  h.send('early');
  await assert.rejects(started, /no instance of m could start \(m_0_0: Failed to load shared library\)/);
  assert.equal(h.outcome('early')?.error?.reason, 'unavailable');
  assert.equal(h.of('instance.state').at(-1)?.state, 'failed');
});

test('cancel: a queued request leaves the queue, is answered cancelled once and takes no batch slot; a running one completes', async () => {
  const h = new Harness({ max_batch_size: 8, dynamic_batching: { max_queue_delay_microseconds: 1000, preferred_batch_size: [2] } });
  await h.start();
  h.send('a');
  assert.equal(h.sched.cancel('a'), true);
  assert.equal(h.outcome('a')?.error?.reason, 'cancelled');
  assert.equal(h.outcome('a')?.error?.httpStatus, 499);
  const ev = h.of('request.rejected');
  assert.deepEqual(ev.map((e) => [e.request_id, e.reason]), [['a', 'cancelled']]);
  h.send('b');
  h.send('c');
  assert.deepEqual(h.exec.sizes(), [2], 'b and c form the preferred batch without a');
  assert.equal(h.sched.cancel('b'), false, 'a request in a running batch is not cancelled');
  assert.equal(h.sched.cancel('a'), false, 'nor is one already answered');
  h.exec.finish();
  assert.equal(h.outcome('b')?.result, 'ok:b');
  assert.equal(h.sched.snapshot().stats.rejected.cancelled, 1);
});
