import { test } from 'node:test';
import assert from 'node:assert/strict';
import { standardDeviation } from './deviation';

test('the population standard deviation', () => {
  assert.equal(standardDeviation([]), 0);
  assert.equal(standardDeviation([5]), 0);
  assert.equal(standardDeviation([2, 4, 4, 4, 5, 5, 7, 9]), 2);
  assert.ok(Math.abs(standardDeviation([1, 2, 3, 4]) - Math.sqrt(1.25)) < 1e-12);
});
