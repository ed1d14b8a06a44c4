/**
 * The class behind the predicted p99s of -1 and 4.19 s: the queue model's p99 near and past
 * saturation is one exploding term, and a learned negative offset could take a prediction below zero.
 * A prediction beyond the model's reach says so (no number); one within it is never below a batch's compute.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { predict, RHO_REACH, withOffset } from './queue-model';

const m = { rate_per_s: 300, samples_per_request: 1, max_batch_size: 64, instances: 1, cost: (n: number) => 8000 + 200 * n };

test('past saturation and near it: beyond the model, with the reason, never a number', () => {
  for (const delay of [0, 1000, 5000]) {
    const busy = predict({ ...m, rate_per_s: 2000 }, delay);
    assert.equal(busy.within, false);
    if (!busy.within) assert.match(busy.beyond, /cannot keep up|busy/);
    assert.equal(withOffset(busy, -5000), undefined);
  }
  // every rate: a number only below the reach, and then finite and positive
  for (let rate = 10; rate < 5000; rate *= 1.3) {
    for (const delay of [0, 500, 5000, 9900]) {
      const p = predict({ ...m, rate_per_s: rate }, delay);
      if (p.within) {
        assert.ok(p.utilization < RHO_REACH && Number.isFinite(p.p99_us) && p.p99_us > 0, JSON.stringify(p));
      } else assert.ok(p.utilization >= RHO_REACH);
    }
  }
});

test('a negative offset never predicts less than one batch\'s compute', () => {
  const p = predict({ ...m, rate_per_s: 50 }, 0);
  assert.ok(p.within);
  assert.equal(withOffset(p, -1e9), p.batch_us);
});

test('preferred sizes cut the batch the model predicts (at the first one reached while an instance is free)', () => {
  const fast = { ...m, rate_per_s: 9000, cost: (n: number) => 100 + 8 * n };
  const free = predict(fast, 2000);
  const cut = predict({ ...fast, preferred: [8, 16, 32] }, 2000);
  assert.ok(cut.batch <= 8 + 1e-9 && free.batch > 8, `${cut.batch} vs ${free.batch}`);
  assert.ok(cut.compute_per_request_us > free.compute_per_request_us);
});
