import { test } from 'node:test';
import assert from 'node:assert/strict';
import { percentile, percentileOf, percentilesOf } from './percentile';

test('nearest rank on the 0..1 scale: the value at rank ceil(p * n)', () => {
  const xs = [10, 20, 30, 40, 50, 60, 70, 80, 90, 100];
  assert.equal(percentile(xs, 0.5), 50, 'rank 5 of 10, not an interpolation');
  assert.equal(percentile(xs, 0.51), 60);
  assert.equal(percentile(xs, 0.99), 100);
  assert.equal(percentile(xs, 0.9), 90, 'exactly 90% at or below: rank 9');
  assert.equal(percentile(xs, 0), 10);
  assert.equal(percentile(xs, 1), 100);
  assert.equal(percentile([], 0.5), 0);
  assert.equal(percentileOf([3, 1, 2], 0.5), 2, 'any order');
});

test('percentilesOf: p50 / p90 / p99 / max of values in any order, each the nearest rank', () => {
  const values = Array.from({ length: 100 }, (_, i) => 100 - i);
  assert.deepEqual(percentilesOf(values), { p50: 50, p90: 90, p99: 99, max: 100 });
  assert.deepEqual(percentilesOf([]), { p50: 0, p90: 0, p99: 0, max: 0 });
});
