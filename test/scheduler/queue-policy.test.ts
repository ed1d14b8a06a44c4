import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Harness } from './helpers.ts';

/** one instance, one request per batch: the order batches leave in is the service order */
const oneAtATime = (db: object) => ({ max_batch_size: 1, dynamic_batching: db });

test('level 1 is served first; no priority and out-of-range priority get default_priority_level', async () => {
  const h = new Harness(oneAtATime({ priority_levels: 3, default_priority_level: 2 }));
  await h.start();
  h.send('busy');
  h.send('low', { priority: 3 });
  h.send('nopri');
  h.send('weird', { priority: 9 });
  h.send('high', { priority: 1 });
  const levels = Object.fromEntries(h.of('request.queued').map((e) => [e.request_id, e.priority]));
  assert.deepEqual(levels, { busy: 2, low: 3, nopri: 2, weird: 2, high: 1 });
  for (let i = 0; i < 5; i++) h.exec.finish();
  assert.deepEqual(h.exec.all.map((b) => b.requests[0].payload), ['busy', 'high', 'nopri', 'weird', 'low']);
  h.assertAllAnsweredOnce(['busy', 'low', 'nopri', 'weird', 'high']);
});

test('max_queue_size refuses at enqueue with "Exceeds maximum queue size" (503), per level', async () => {
  const h = new Harness(oneAtATime({ priority_levels: 2, default_priority_level: 2, default_queue_policy: { max_queue_size: 2 }, priority_queue_policy: { '1': { max_queue_size: 1 } } }));
  await h.start();
  h.send('busy');
  h.send('a');
  h.send('b');
  h.send('c');
  h.send('h1', { priority: 1 });
  h.send('h2', { priority: 1 });
  assert.deepEqual(h.outcome('c')?.error, { reason: 'queue_full', message: 'Exceeds maximum queue size', httpStatus: 503 });
  assert.equal(h.outcome('h2')?.error?.reason, 'queue_full');
  assert.equal(h.outcome('a'), undefined);
  assert.deepEqual(h.of('request.rejected').map((e) => [e.request_id, e.reason, e.queued_us]), [['c', 'queue_full', undefined], ['h2', 'queue_full', undefined]], 'refused at the door: never queued');
  while (h.exec.running.length) h.exec.finish();
  assert.equal(h.outcome('a')?.result, 'ok:a');
  assert.equal(h.outcome('h1')?.result, 'ok:h1');
});

test('REJECT timeout: "Request timeout expired" (503) when the queue timeout passes, on time', async () => {
  const h = new Harness(oneAtATime({ default_queue_policy: { default_timeout_microseconds: 1000, timeout_action: 'REJECT' } }));
  await h.start();
  h.send('busy');
  h.clock.advance(100);
  h.send('late');
  h.clock.advance(999);
  assert.equal(h.outcome('late'), undefined);
  h.clock.advance(1);
  assert.deepEqual(h.outcome('late')?.error, { reason: 'timeout', message: 'Request timeout expired', httpStatus: 503 });
  const rej = h.of('request.rejected')[0];
  assert.deepEqual([rej.t, rej.reason, rej.queued_us], [1100, 'timeout', 1000], 'the event says how long it had waited');
  h.exec.finish();
  assert.equal(h.exec.all.length, 1, 'a timed-out request is never executed');
});

test('DELAY timeout: the request moves behind fresh requests of its level and is still answered', async () => {
  const h = new Harness(oneAtATime({ default_queue_policy: { default_timeout_microseconds: 1000, timeout_action: 'DELAY' } }));
  await h.start();
  h.send('busy');
  h.send('old');
  h.clock.advance(1500);
  h.send('fresh1');
  h.send('fresh2');
  assert.deepEqual(h.of('request.delayed').map((e) => [e.request_id, e.t]), [['old', 1000]]);
  while (h.exec.running.length) h.exec.finish();
  assert.deepEqual(h.exec.all.map((b) => b.requests[0].payload), ['busy', 'fresh1', 'fresh2', 'old']);
  assert.equal(h.outcome('old')?.result, 'ok:old');
  assert.equal(h.of('request.rejected').length, 0);
});

test('allow_timeout_override: a request may shorten the default timeout, never lengthen it', async () => {
  for (const [allow, override, expectAt] of [[true, 300, 300], [true, 5000, 1000], [false, 300, 1000]] as const) {
    const h = new Harness(oneAtATime({ default_queue_policy: { default_timeout_microseconds: 1000, allow_timeout_override: allow } }));
    await h.start();
    h.send('busy');
    h.send('r', { timeoutUs: override });
    h.clock.advance(expectAt - 1);
    assert.equal(h.outcome('r'), undefined, `allow=${allow} override=${override}: too early`);
    h.clock.advance(1);
    assert.equal(h.outcome('r')?.error?.reason, 'timeout', `allow=${allow} override=${override}`);
  }
});

test('invalid batch sizes are refused with 400 and never queued', async () => {
  const h = new Harness({ max_batch_size: 4, dynamic_batching: {} });
  await h.start();
  h.send('big', { batchSize: 5 });
  h.send('zero', { batchSize: 0 });
  assert.equal(h.outcome('big')?.error?.httpStatus, 400);
  assert.match(h.outcome('big')!.error!.message, /exceeds max_batch_size 4/);
  assert.equal(h.outcome('zero')?.error?.reason, 'invalid');
  assert.equal(h.of('request.queued').length, 0);
});

test('generated request ids never repeat, refused requests included', async () => {
  const h = new Harness({ max_batch_size: 1, dynamic_batching: { default_queue_policy: { max_queue_size: 1 } } });
  await h.start();
  const ids: string[] = [];
  for (let i = 0; i < 4; i++) ids.push(h.sched.submit({ batchSize: 1, shapeKey: '', payload: `p${i}` }, () => {}));
  assert.equal(new Set(ids).size, 4);
  assert.deepEqual(h.of('request.rejected').map((e) => e.request_id), ids.slice(2));
});
