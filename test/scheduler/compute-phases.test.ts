// compute_input / compute_output: what an executor measured inside a batch's span reaches batch.completed
// and every request.completed of the batch, never more than the span (compute_infer is never negative),
// and not at all for a failed batch. VirtualClock, hand-driven executor.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { computeSplit } from '@inferscope/core/events.ts';
import { Harness } from './helpers';

const config = { max_batch_size: 2, dynamic_batching: { max_queue_delay_microseconds: 1000 }, instance_group: [{ count: 1, kind: 'KIND_CPU' }] };

async function oneBatch(phases: { inputUs: number; outputUs: number } | undefined, fail = false) {
  const h = new Harness(config);
  await h.start();
  h.send('a');
  h.send('b');
  h.clock.advance(0);
  const b = h.exec.running.shift()!;
  h.clock.advance(100);
  if (fail) b.done(new Error('boom'), undefined, phases);
  else b.done(null, b.requests.map((r) => `ok:${r.payload}`), phases);
  return h;
}

test('measured phases reach the batch and each of its requests', async () => {
  const h = await oneBatch({ inputUs: 30.4, outputUs: 20 });
  const [batch] = h.of('batch.completed');
  assert.equal(batch.compute_us, 100);
  assert.equal(batch.compute_input_us, 30);
  assert.equal(batch.compute_output_us, 20);
  assert.deepEqual(computeSplit(batch), { inputUs: 30, inferUs: 50, outputUs: 20 });
  const done = h.of('request.completed');
  assert.equal(done.length, 2);
  for (const r of done) assert.deepEqual(computeSplit(r), { inputUs: 30, inferUs: 50, outputUs: 20 });
});

test('phases are clipped to the span; absent or failed means no phases', async () => {
  const over = (await oneBatch({ inputUs: 80, outputUs: 70 })).of('batch.completed')[0];
  assert.deepEqual(computeSplit(over), { inputUs: 80, inferUs: 0, outputUs: 20 });
  const none = (await oneBatch(undefined)).of('batch.completed')[0];
  assert.equal(none.compute_input_us, undefined);
  assert.deepEqual(computeSplit(none), { inputUs: 0, inferUs: 100, outputUs: 0 });
  const failed = await oneBatch({ inputUs: 10, outputUs: 10 }, true);
  assert.equal(failed.of('batch.completed')[0].compute_input_us, undefined);
  assert.ok(failed.of('request.completed').every((r) => r.compute_input_us === undefined && !r.ok));
});
