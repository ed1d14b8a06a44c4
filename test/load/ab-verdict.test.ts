import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spreadOf, verdictOf } from '../../packages/core/src/load/ab-verdict.ts';

test('spread: median and range of the rounds', () => {
  assert.deepEqual(spreadOf([3, 1, 2]), { median: 2, min: 1, max: 3 });
  assert.deepEqual(spreadOf([4, 1, 2, 3]), { median: 2.5, min: 1, max: 4 });
  assert.deepEqual(spreadOf([]), { median: 0, min: 0, max: 0 });
});

test('a side is better only when every round beats every round of the other, in the figure\'s direction', () => {
  const side = (label: string, values: number[]) => ({ label, spread: spreadOf(values) });
  assert.equal(verdictOf('throughput_per_s', side('A', [100, 110]), side('B', [120, 130]), 2).better, 'B');
  assert.equal(verdictOf('p99_us', side('A', [100, 110]), side('B', [120, 130]), 2).better, 'A', 'lower latency is better');
  const overlap = verdictOf('p99_us', side('A', [100, 125]), side('B', [120, 130]), 2);
  assert.equal(overlap.better, null);
  assert.match(overlap.why, /noise/);
  const single = verdictOf('throughput_per_s', side('A', [100]), side('B', [200]), 1);
  assert.equal(single.better, null, 'one round has no spread: no verdict');
  assert.match(single.why, /3 rounds or more/);
});
