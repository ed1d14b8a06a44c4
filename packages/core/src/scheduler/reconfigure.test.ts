import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mergeBatchingPatch } from './reconfigure';
import { planBatchingChange } from './live-change';
import { PolicyError } from './policy';

test('mergeBatchingPatch keeps the rest of a whole config, changes nothing in place and lists the changes', () => {
  const current = {
    name: 'm',
    platform: 'onnxruntime_onnx',
    max_batch_size: 8,
    dynamic_batching: { max_queue_delay_microseconds: 100, preferred_batch_size: [4] },
  };
  const patch = { max_queue_delay_microseconds: 500, preferred_batch_size: [2, 4], max_batch_size: 6 };
  const { config, changes } = mergeBatchingPatch(current, patch);
  assert.equal(config.platform, 'onnxruntime_onnx');
  assert.deepEqual(config.dynamic_batching, { max_queue_delay_microseconds: 500, preferred_batch_size: [2, 4] });
  assert.equal(config.max_batch_size, 6);
  assert.deepEqual(changes, [
    { path: 'dynamic_batching.max_queue_delay_microseconds', old: 100, new: 500 },
    { path: 'dynamic_batching.preferred_batch_size', old: [4], new: [2, 4] },
    { path: 'max_batch_size', old: 8, new: 6 },
  ]);
  assert.deepEqual(current.dynamic_batching, { max_queue_delay_microseconds: 100, preferred_batch_size: [4] });
  patch.preferred_batch_size.push(99);
  assert.deepEqual(config.dynamic_batching?.preferred_batch_size, [2, 4], 'the result shares no array with the patch');
});

test('mergeBatchingPatch: same values are no change; a config without dynamic_batching says it gains one', () => {
  assert.deepEqual(mergeBatchingPatch({ max_batch_size: 4, dynamic_batching: { preserve_ordering: true } }, { preserve_ordering: true }).changes, []);
  const { changes } = mergeBatchingPatch({ max_batch_size: 4 }, { max_queue_delay_microseconds: 10 });
  assert.deepEqual(changes.map((c) => c.path), ['dynamic_batching', 'dynamic_batching.max_queue_delay_microseconds']);
});

test('bad patches are refused with PolicyError before or after the merge', () => {
  assert.throws(() => mergeBatchingPatch({ max_batch_size: 4 }, { bogus: 1 } as never), (e) => e instanceof PolicyError && /unknown dynamic batching field 'bogus'/.test(e.message));
  assert.throws(() => mergeBatchingPatch({ max_batch_size: 4 }, { max_batch_size: 0 }), /between 0 and non-zero/);
  assert.throws(() => mergeBatchingPatch({ max_batch_size: 4 }, { preferred_batch_size: 3 as never }), /must be a list/);
  assert.throws(() => planBatchingChange('m', { max_batch_size: 4, dynamic_batching: {} }, { max_queue_delay_microseconds: -1 }, 4), /'max_queue_delay_microseconds' must be between 0 and 3600000000, got -1/);
  assert.throws(() => planBatchingChange('m', { max_batch_size: 4, dynamic_batching: {} }, { preferred_batch_size: [8] }, 4), /preferred size must be <= max batch size.*preferred_batch_size 8 is larger than max_batch_size 4/);
});
