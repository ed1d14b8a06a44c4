import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DYNAMIC_BATCHING_FIELDS, LIVE_LIMITS, formatLivePath, limitMessage, livePath, parseLivePath, readLivePath, withinLimit, writeLivePath } from './index';

test('every live path survives format -> parse, and strings that name nothing live parse to undefined', () => {
  const all = [livePath.maxBatchSize, livePath.dynamicBatching, ...DYNAMIC_BATCHING_FIELDS.map(livePath.batching), livePath.instanceCount(0), livePath.instanceCount(12)];
  for (const p of all) assert.deepEqual(parseLivePath(formatLivePath(p)), p);
  assert.equal(formatLivePath(livePath.batching('max_queue_delay_microseconds')), 'dynamic_batching.max_queue_delay_microseconds');
  assert.equal(formatLivePath(livePath.instanceCount(1)), 'instance_group[1].count');
  for (const s of ['dynamic_batching.colour', 'instance_group[0].kind', 'instance_group[x].count', 'name', '', 'dynamic_batching.', 'max_batch_size.x']) {
    assert.equal(parseLivePath(s), undefined, s);
  }
});

test('read and write find each path in a config; a missing instance group is not invented', () => {
  const config: { max_batch_size?: number; dynamic_batching?: Record<string, unknown> | null; instance_group?: { count?: number }[] } = { max_batch_size: 8, instance_group: [{ count: 1 }] };
  assert.equal(readLivePath(config, livePath.batching('max_queue_delay_microseconds')), undefined);
  assert.ok(writeLivePath(config, livePath.batching('max_queue_delay_microseconds'), 500));
  assert.deepEqual(config.dynamic_batching, { max_queue_delay_microseconds: 500 });
  assert.ok(writeLivePath(config, livePath.instanceCount(0), 3));
  assert.equal(readLivePath(config, livePath.instanceCount(0)), 3);
  assert.equal(writeLivePath(config, livePath.instanceCount(1), 2), false);
  assert.equal(config.instance_group!.length, 1);
  assert.ok(writeLivePath(config, livePath.maxBatchSize, 4));
  assert.equal(readLivePath(config, livePath.maxBatchSize), 4);
  assert.equal(readLivePath(undefined, livePath.maxBatchSize), undefined);
});

test('limits: integers inside [min, max] only, refused with the bounds named', () => {
  const d = LIVE_LIMITS.max_queue_delay_microseconds;
  assert.ok(withinLimit('max_queue_delay_microseconds', d.min) && withinLimit('max_queue_delay_microseconds', d.max));
  for (const v of [d.max + 1, -1, 1.5, '5', NaN, null]) assert.equal(withinLimit('max_queue_delay_microseconds', v), false, String(v));
  assert.ok(d.sliderMax <= d.max, 'the slider stays inside what the server accepts');
  assert.equal(limitMessage('instance_count', 'count', 0), "'count' must be between 1 and 64, got 0");
});
