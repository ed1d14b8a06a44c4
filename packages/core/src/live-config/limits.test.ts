import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LIVE_LIMITS, sliderRange } from './limits';

test('a slider over a live limit keeps its min and step and never reaches past its max', () => {
  const delay = LIVE_LIMITS.max_queue_delay_microseconds;
  assert.deepEqual(sliderRange('max_queue_delay_microseconds'), { min: delay.min, max: delay.sliderMax, step: delay.step });
  assert.deepEqual(sliderRange('max_queue_delay_microseconds', 5000), { min: delay.min, max: 5000, step: delay.step });
  assert.equal(sliderRange('instance_count', 1_000).max, LIVE_LIMITS.instance_count.max, 'a longer view is cut at the limit');
  assert.equal(sliderRange('max_batch_size').max, LIVE_LIMITS.max_batch_size.max, 'no slider top: the limit itself');
});
