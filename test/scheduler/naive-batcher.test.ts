/**
 * The course's naive batcher (a batch only when the queue is full, a final flush after max_wait) next to
 * Triton's rule on the same arrivals: worked examples by hand, and the demo's claim on the seeded trace.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runNaiveBatcher, runCourseDemo, courseArrivals, COURSE_DEFAULTS } from '@inferscope/core/sim';

const opts = { maxBatch: 4, processUs: 100, maxWaitUs: 300 };

test('a batch leaves only when the queue holds max_batch; what is left waits for the final flush', () => {
  const r = runNaiveBatcher([10, 20, 30, 40, 50], opts);
  assert.deepEqual(r.batches, [{ start_us: 40, requests: [0, 1, 2, 3], why: 'full' }, { start_us: 350, requests: [4], why: 'flush' }]);
  assert.deepEqual(r.requests.map((x) => x.wait_us), [30, 20, 10, 0, 300]);
});

test('a queue that fills while the worker is busy runs when it is free, taking the whole queue', () => {
  const r = runNaiveBatcher([0, 1, 2, 3, 4, 5, 6, 7, 150], opts);
  assert.deepEqual(r.batches.map((b) => [b.start_us, b.requests.length, b.why]), [[3, 4, 'full'], [103, 4, 'full'], [450, 1, 'flush']]);
  assert.equal(r.requests[4].wait_us, 99);
});

test('sparse traffic: every request waits for the final flush, Triton waits at most its delay', () => {
  const d = runCourseDemo({ requests: 3, gapMinUs: 1_000_000, gapMaxUs: 1_000_000, delayUs: 100_000 });
  assert.deepEqual(d.naive.requests.map((x) => x.wait_us), [2_300_000, 1_300_000, 300_000]);
  assert.deepEqual(d.triton.requests.map((x) => x.wait_us), [100_000, 100_000, 100_000]);
});

test("the course's trace (10 requests, 50..150 ms apart, batch 4, 200 ms): the naive worst wait is well above Triton's", () => {
  const d = runCourseDemo(COURSE_DEFAULTS);
  assert.equal(d.arrivals_us.length, 10);
  const gaps = d.arrivals_us.map((t, i) => t - (i ? d.arrivals_us[i - 1] : 0));
  assert.ok(gaps.every((g) => g >= 50_000 && g <= 150_000));
  assert.ok(d.worst_wait_us.naive > 1.5 * d.worst_wait_us.triton, JSON.stringify(d.worst_wait_us));
  assert.ok(d.naive.batches.at(-1)!.why === 'flush', 'the last requests leave only with the flush');
  // every request answered exactly once on both sides
  for (const side of [d.naive, d.triton]) assert.ok(side.requests.every((x) => Number.isFinite(x.wait_us) && x.wait_us >= 0));
  assert.deepEqual(courseArrivals(COURSE_DEFAULTS), d.arrivals_us, 'seeded: the same arrivals again');
});
