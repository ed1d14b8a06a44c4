import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decideBatch } from '@inferscope/core/scheduler/decide.ts';
import { arraySource } from '@inferscope/core/scheduler/queue-entry.ts';
import { policyFromConfig, policyFromValidated, trustValidated } from '@inferscope/core/scheduler/policy.ts';

const reqs = (n: number, at = 0, bs = 1, shapeKey = '') =>
  Array.from({ length: n }, (_, i) => ({ batchSize: bs, shapeKey, enqueuedUs: at + i }));

test('nothing waiting: wait forever', () => {
  const p = policyFromConfig({ max_batch_size: 8, dynamic_batching: {} });
  const d = decideBatch(arraySource([]), p, 0);
  assert.equal(d.kind, 'wait');
  assert.equal(d.kind === 'wait' && d.untilUs, Infinity);
});

test('no dynamic_batching or max_batch_size 0: one request per batch, immediate', () => {
  for (const cfg of [{ max_batch_size: 8 }, { max_batch_size: 0, dynamic_batching: {} }]) {
    const d = decideBatch(arraySource(reqs(5)), policyFromConfig(cfg), 0);
    assert.deepEqual([d.kind, d.count, d.kind === 'send' && d.trigger], ['send', 1, 'immediate']);
  }
});

test('delay 0 sends what is pending at once', () => {
  const d = decideBatch(arraySource(reqs(3)), policyFromConfig({ max_batch_size: 8, dynamic_batching: {} }), 0);
  assert.deepEqual([d.kind, d.count, d.kind === 'send' && d.trigger], ['send', 3, 'immediate']);
});

test('delay: wait until the oldest has waited max_queue_delay, then send all pending', () => {
  const p = policyFromConfig({ max_batch_size: 8, dynamic_batching: { max_queue_delay_microseconds: 1000 } });
  const src = arraySource(reqs(3, 100));
  const w = decideBatch(src, p, 500);
  assert.equal(w.kind, 'wait');
  assert.equal(w.kind === 'wait' && w.untilUs, 1100);
  const s = decideBatch(src, p, 1100);
  assert.deepEqual([s.kind, s.count, s.kind === 'send' && s.trigger], ['send', 3, 'delay']);
});

test('max_batch_size counts samples: a batch closes when the next request would overflow', () => {
  const p = policyFromConfig({ max_batch_size: 8, dynamic_batching: { max_queue_delay_microseconds: 1000 } });
  const d = decideBatch(arraySource([...reqs(2, 0, 3), ...reqs(1, 5, 3)]), p, 10);
  assert.deepEqual([d.kind, d.count, d.size, d.kind === 'send' && d.trigger], ['send', 2, 6, 'max_batch']);
  const full = decideBatch(arraySource(reqs(10)), p, 10);
  assert.deepEqual([full.count, full.size, full.kind === 'send' && full.trigger], [8, 8, 'max_batch']);
});

test('preferred sizes: the largest reachable wins, sent before the delay', () => {
  const p = policyFromConfig({ max_batch_size: 16, dynamic_batching: { preferred_batch_size: [2, 4, 8], max_queue_delay_microseconds: 1e6 } });
  const d = decideBatch(arraySource(reqs(6)), p, 10);
  assert.deepEqual([d.kind, d.count, d.kind === 'send' && d.trigger], ['send', 4, 'preferred']);
  const d9 = decideBatch(arraySource(reqs(9)), p, 10);
  assert.equal(d9.count, 8);
  const d1 = decideBatch(arraySource(reqs(1)), p, 10);
  assert.equal(d1.kind, 'wait');
});

test('preferred: once the delay has passed everything pending goes', () => {
  const p = policyFromConfig({ max_batch_size: 16, dynamic_batching: { preferred_batch_size: [4], max_queue_delay_microseconds: 100 } });
  const d = decideBatch(arraySource(reqs(6)), p, 200);
  assert.deepEqual([d.count, d.kind === 'send' && d.trigger], [6, 'delay']);
});

test('a batch that cannot reach the largest preferred size exactly is capped below it', () => {
  const p = policyFromConfig({ max_batch_size: 16, dynamic_batching: { preferred_batch_size: [8], max_queue_delay_microseconds: 1e6 } });
  const d = decideBatch(arraySource([...reqs(7), ...reqs(1, 10, 2)]), p, 20);
  assert.deepEqual([d.kind, d.count, d.size], ['send', 7, 7]);
});

test('different shape keys never share a batch', () => {
  const p = policyFromConfig({ max_batch_size: 8, dynamic_batching: { max_queue_delay_microseconds: 1e6 } });
  const d = decideBatch(arraySource([...reqs(2, 0, 1, 'L16'), ...reqs(3, 5, 1, 'L32')]), p, 10);
  assert.deepEqual([d.kind, d.count, d.kind === 'send' && d.trigger], ['send', 2, 'shape']);
});

test('flush (drain) never waits', () => {
  const p = policyFromConfig({ max_batch_size: 8, dynamic_batching: { max_queue_delay_microseconds: 1e6 } });
  const d = decideBatch(arraySource(reqs(2)), p, 0, { flush: true });
  assert.deepEqual([d.kind, d.kind === 'send' && d.trigger], ['send', 'drain']);
});

test('policy validation gives clear errors', () => {
  // A config nobody validated is checked by the config file's rules, in their words (validate/model.ts).
  assert.throws(() => policyFromConfig({ max_batch_size: 4, dynamic_batching: { preferred_batch_size: [8] } }), /preferred size must be <= max batch size.*preferred_batch_size 8/);
  assert.throws(() => policyFromConfig({ max_batch_size: 4, dynamic_batching: { priority_levels: 2, default_priority_level: 3 } }), /default priority level must be in range \[1, 2\]/);
  assert.throws(() => policyFromConfig({ max_batch_size: 4, dynamic_batching: { priority_levels: 2, default_priority_level: 1, priority_queue_policy: { 3: {} } } }), /priority queue policy must have priority level in range \[1, 2\]/);
  assert.throws(() => policyFromConfig({ max_batch_size: 4, dynamic_batching: { priority_levels: 2, default_priority_level: 1, preserve_ordering: true } }), /Only one priority level is allowed when 'preserve_ordering'/);
  // A validated config is trusted: the scheduler derives its policy and checks nothing again.
  assert.equal(policyFromValidated(trustValidated({ max_batch_size: 4, dynamic_batching: { preferred_batch_size: [2, 4] } })).maxPreferred, 4);
});
