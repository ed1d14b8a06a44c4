import { test } from 'node:test';
import assert from 'node:assert/strict';
import { adviseModelConfig } from './advise';
import { parseModelConfig } from './parser';

const advise = (text: string) => adviseModelConfig(parseModelConfig(text));

test('dims that seem to include the batch dimension get the beginner hint', () => {
  const [a, ...rest] = advise('max_batch_size: 8 input { name: "image" dims: [ 1, 3, 224, 224 ] }');
  assert.equal(rest.length, 0);
  assert.match(a!.hint ?? '', /dims exclude the batch dimension; with max_batch_size > 0 Triton prepends it/);
  assert.match(a!.hint ?? '', /dims: \[ 3, 224, 224 \]/);
  assert.deepEqual(advise('max_batch_size: 0 input { name: "image" dims: [ 1, 3, 224, 224 ] }'), []);
  assert.deepEqual(advise('max_batch_size: 8 input { name: "image" dims: [ 3, 224, 224 ] }'), []);
  // lesson 2's first mistake: a flat input written with the batch dimension
  assert.match(advise('max_batch_size: 32 input { name: "input" dims: [ 1, 784 ] }')[0]!.hint ?? '', /dims: \[ 784 \]/);
  assert.deepEqual(advise('max_batch_size: 32 input { name: "ids" dims: [ 1 ] }'), []);
});

test('dynamic batching without a batch dimension, a delay in seconds, repeated preferred sizes', () => {
  assert.match(advise('dynamic_batching { }')[0]!.message, /no effect when max_batch_size is 0/);
  assert.match(advise('max_batch_size: 4 dynamic_batching { max_queue_delay_microseconds: 5000000 }')[0]!.hint ?? '', /microseconds/);
  assert.match(advise('max_batch_size: 4 dynamic_batching { preferred_batch_size: [ 2, 2 ] }')[0]!.message, /more than once/);
  assert.deepEqual(advise('max_batch_size: 4 dynamic_batching { preferred_batch_size: [ 2, 4 ] max_queue_delay_microseconds: 100 }'), []);
});
