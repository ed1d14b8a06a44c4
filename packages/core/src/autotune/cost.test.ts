/**
 * The server's cost for the tuner: the calibration's shape at the level this host measured. A host four
 * times slower than its calibration predicts four times the cost at every size, also at sizes it never
 * ran, and so a higher utilization at the same rate (which is what decides how short a delay may be).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ObservedCost } from './cost';
import { predict } from './queue-model';
import type { AutotuneWindow } from './window';

const calibrated = (n: number) => 100 + 10 * n;
const window = (bySize: Record<number, [number, number]>): AutotuneWindow => ({
  duration_us: 1e6, arrivals: 0, completed: 0, p99_us: 0, over_target: 0, batches: 0, batch_samples: 0, busy_us: 0, compute_by_size: bySize,
});

test('before any batch is measured the calibration stands', () => {
  const o = new ObservedCost();
  assert.equal(o.scaled(calibrated)(8), 180);
});

test('batches of one size measured 4x slower scale every size, keeping the calibration\'s shape', () => {
  const o = new ObservedCost();
  o.add(window({ 1: [50, 50 * 4 * 110] }));
  const cost = o.scaled(calibrated);
  assert.equal(Math.round(cost(1)), 440);
  assert.equal(Math.round(cost(32)), 4 * 420);
  // the fit of the measured sizes alone, by contrast, sees no gain from batching (per item only)
  const fit = o.cost()!;
  assert.equal(Math.round(fit(32) / 32), Math.round(fit(1)));
  // the slower host is busier at the same rate: the model predicts it
  const m = { rate_per_s: 1500, samples_per_request: 1, max_batch_size: 64, instances: 1 };
  assert.ok(predict({ ...m, cost }, 500).utilization > 2 * predict({ ...m, cost: calibrated }, 500).utilization);
});

test('a wild measurement is bounded', () => {
  const o = new ObservedCost();
  o.add(window({ 1: [1, 1e9] }));
  assert.equal(o.scaled(calibrated)(1), 110 * 50);
});
