import { test } from 'node:test';
import assert from 'node:assert/strict';
import { planBatchingChange, planInstanceCount } from './live-change';
import { PolicyError } from './policy';

const config = {
  name: 'm', max_batch_size: 8,
  dynamic_batching: { max_queue_delay_microseconds: 1000, preferred_batch_size: [4] },
  instance_group: [{ name: 'g0', count: 1, kind: 'KIND_CPU' }],
  input: [{ name: 'x' }],
};

test('a batching patch yields the new config, its policy and the change list, once, leaving the old config as it was', () => {
  const seen: unknown[] = [];
  const r = planBatchingChange('m', config, { max_queue_delay_microseconds: 250, max_batch_size: 4 }, 8, (next) => seen.push(next));
  assert.deepEqual(r.changes, [
    { path: 'dynamic_batching.max_queue_delay_microseconds', old: 1000, new: 250 },
    { path: 'max_batch_size', old: 8, new: 4 },
  ]);
  assert.equal(r.config.dynamic_batching.max_queue_delay_microseconds, 250);
  assert.deepEqual(r.config.input, config.input, 'fields outside the patch are kept');
  assert.equal(r.policy.maxBatchSize, 4);
  assert.equal(r.policy.maxQueueDelayUs, 250);
  assert.deepEqual(seen, [r.config], "the caller's check saw the merged config");
  assert.equal(config.dynamic_batching.max_queue_delay_microseconds, 1000);
});

test('refusals: above the loaded limit, a model that cannot batch, sequence models, the caller\'s check first', () => {
  assert.throws(() => planBatchingChange('m', config, { max_batch_size: 16 }, 8), (e) => e instanceof PolicyError && /above what model 'm' allows \(8/.test(e.message));
  assert.throws(() => planBatchingChange('m', { max_batch_size: 0 }, { max_queue_delay_microseconds: 1 }, 0), /cannot batch/);
  assert.throws(() => planBatchingChange('m', { ...config, sequence_batching: {} }, { max_queue_delay_microseconds: 1 }, 8), /sequence_batching/);
  assert.throws(() => planBatchingChange('m', config, { max_batch_size: 2 }, 8, () => { throw new Error('file rule'); }), /file rule/);
  assert.throws(() => planBatchingChange('m', config, { max_batch_size: 2 }, 8), (e) => e instanceof PolicyError);
});

test('an instance count names its group, counts the delta, and stays inside the limits table', () => {
  const r = planInstanceCount('m', config, undefined, 3);
  assert.deepEqual(r.changes, [{ path: 'instance_group[0].count', old: 1, new: 3 }]);
  assert.equal(r.group, 'g0');
  assert.equal(r.delta, 2);
  assert.equal(config.instance_group[0].count, 1);
  assert.throws(() => planInstanceCount('m', config, undefined, 65), /'count' must be between 1 and 64, got 65/);
  assert.throws(() => planInstanceCount('m', config, 'nope', 2), /no instance group 'nope'/);
  assert.deepEqual(planInstanceCount('m', config, 'g0', 1).changes, []);
});

test('no preferred sizes live means [max_batch_size], as Triton normalises a file (so the change can be saved)', () => {
  const config = { max_batch_size: 32, dynamic_batching: { preferred_batch_size: [8, 16], max_queue_delay_microseconds: 100 } };
  const r = planBatchingChange('m', config, { preferred_batch_size: [], max_batch_size: 16 }, 32);
  assert.deepEqual(r.config.dynamic_batching?.preferred_batch_size, [16]);
  assert.deepEqual(r.changes.find((c) => c.path === 'dynamic_batching.preferred_batch_size')?.new, [16]);
  const same = planBatchingChange('m', { max_batch_size: 16, dynamic_batching: { preferred_batch_size: [16] } }, { preferred_batch_size: [] }, 16);
  assert.equal(same.changes.length, 0, '[] on a config already at [max] changes nothing');
});
