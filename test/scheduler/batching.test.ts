import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Harness, tick } from './helpers.ts';
import type { Executor } from '@inferscope/core/scheduler/types.ts';

test('delay: a lone request waits max_queue_delay on an idle instance, then goes with trigger delay', async () => {
  const h = new Harness({ max_batch_size: 8, dynamic_batching: { max_queue_delay_microseconds: 500 } });
  await h.start();
  h.send('a');
  h.clock.advance(200);
  h.send('b');
  h.clock.advance(299);
  assert.equal(h.exec.all.length, 0);
  h.clock.advance(1);
  const formed = h.of('batch.formed');
  assert.deepEqual(formed.map((b) => [b.request_ids, b.trigger, b.oldest_wait_us, b.t]), [[['a', 'b'], 'delay', 500, 500]]);
  h.exec.finish();
  const done = h.of('request.completed');
  assert.deepEqual(done.map((e) => [e.request_id, e.queue_us, e.total_us]), [['a', 500, 500], ['b', 300, 300]]);
});

test('preferred size reached: sent at once, without waiting for the delay', async () => {
  const h = new Harness({ max_batch_size: 16, dynamic_batching: { preferred_batch_size: [4, 8], max_queue_delay_microseconds: 1e6 } });
  await h.start();
  for (let i = 0; i < 4; i++) h.send(`r${i}`);
  assert.deepEqual(h.of('batch.formed').map((b) => [b.size, b.trigger]), [[4, 'preferred']]);
});

test('while every instance is busy the pending batch keeps growing; the largest preferred size wins', async () => {
  const h = new Harness({ max_batch_size: 16, dynamic_batching: { preferred_batch_size: [2, 4, 8], max_queue_delay_microseconds: 100 } });
  await h.start();
  h.send('first', { batchSize: 2 });
  assert.equal(h.exec.running.length, 1);
  for (let i = 0; i < 9; i++) {
    h.clock.advance(50);
    h.send(`g${i}`);
  }
  assert.equal(h.exec.all.length, 1, 'nothing is handed to the busy instance');
  // Triton's queued payload: [g0, g1] at 100 (preferred 2), 4 at 200, 6 at 350 (g4's delay), 7 with g6 (6 is
  // no preferred size, so it takes what waits), 8 at 400 (the largest preferred size: with a delay it still
  // grows), and g8 at 450 overshoots it and joins (Triton's #8141): the instance takes all 9 when it frees.
  h.clock.advance(0); // the batcher looks at g8 (at 450) before the instance frees at 450
  assert.equal(h.of('batch.formed').length, 1, 'a queued payload is formed when an instance takes it');
  h.exec.finish();
  assert.equal(h.of('batch.started')[1].t, 450);
  assert.deepEqual(h.exec.sizes(), [2, 9]);

  // before the delay, the grown batch goes at the largest preferred size it reached (8 of 9 waiting)
  const p = new Harness({ max_batch_size: 16, dynamic_batching: { preferred_batch_size: [2, 4, 8], max_queue_delay_microseconds: 1e6 } });
  await p.start();
  p.send('first', { batchSize: 2 });
  for (let i = 0; i < 9; i++) p.send(`g${i}`);
  p.exec.finish();
  assert.deepEqual(p.of('batch.formed').map((b) => [b.size, b.trigger]), [[2, 'preferred'], [8, 'preferred']]);
  assert.equal(p.sched.snapshot().queue_depth['1'], 1);
});

test('requests with different shape keys never share a batch', async () => {
  const h = new Harness({ max_batch_size: 8, dynamic_batching: {} });
  await h.start();
  h.send('busy');
  h.send('a1', { shapeKey: '16' });
  h.send('a2', { shapeKey: '16' });
  h.send('b1', { shapeKey: '32' });
  h.send('a3', { shapeKey: '16' });
  h.exec.finish();
  h.exec.finish();
  h.exec.finish();
  assert.deepEqual(h.exec.all.map((b) => b.requests.map((r) => r.payload)), [['busy'], ['a1', 'a2'], ['b1'], ['a3']]);
  assert.deepEqual(h.of('batch.formed').map((b) => b.trigger), ['immediate', 'shape', 'shape', 'immediate']);
});

test('no dynamic_batching: each request is its own batch even when many wait', async () => {
  const h = new Harness({ max_batch_size: 8 });
  await h.start();
  for (let i = 0; i < 4; i++) h.send(`r${i}`);
  while (h.exec.running.length) h.exec.finish();
  assert.deepEqual(h.exec.sizes(), [1, 1, 1, 1]);
});

test('preserve_ordering releases answers in arrival order across instances', async () => {
  for (const preserve of [true, false]) {
    const h = new Harness({ max_batch_size: 1, dynamic_batching: { preserve_ordering: preserve }, instance_group: [{ count: 2, kind: 'KIND_CPU' }] });
    await h.start();
    h.send('a');
    h.send('b');
    h.send('c');
    h.exec.finish(1); // b finishes first
    assert.deepEqual(h.answerOrder, preserve ? [] : ['b']);
    h.exec.finish(0); // a
    h.exec.finish(0); // c
    assert.deepEqual(h.answerOrder, preserve ? ['a', 'b', 'c'] : ['b', 'a', 'c']);
  }
});

test('executor failure fails exactly that batch (500) and the instance keeps serving', async () => {
  const h = new Harness({ max_batch_size: 4, dynamic_batching: {} });
  await h.start();
  h.send('x1');
  h.send('y1');
  h.send('y2');
  h.exec.finish();
  h.exec.fail(0, 'CUDA out of memory');
  assert.deepEqual(h.outcome('y1')?.error, { reason: 'failed', message: 'CUDA out of memory', httpStatus: 500 });
  assert.equal(h.outcome('y2')?.error?.reason, 'failed');
  assert.equal(h.outcome('x1')?.result, 'ok:x1');
  h.send('z');
  h.exec.finish();
  assert.equal(h.outcome('z')?.result, 'ok:z');
  const bc = h.of('batch.completed');
  assert.deepEqual(bc.map((b) => b.ok), [true, false, true]);
  assert.equal(h.sched.stats.failed, 2);
});

test('a promise-based executor works, and a wrong result count fails the batch', async () => {
  let bad = false;
  const exec: Executor<string, string> = {
    async execute(_i, batch) {
      return bad ? [] : batch.map((r) => r.payload.toUpperCase());
    },
  };
  const h = new Harness({ max_batch_size: 4, dynamic_batching: {} }, exec);
  await h.start();
  const ok = h.sched.enqueue({ batchSize: 1, shapeKey: '', payload: 'hi' });
  assert.equal(await ok, 'HI');
  bad = true;
  await assert.rejects(h.sched.enqueue({ batchSize: 1, shapeKey: '', payload: 'x' }), /returned 0 results for 1 requests/);
  await tick();
});
