import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, issuesOf } from '../config/validate/test-helpers';
import { AUTOTUNE_PARAMETER, autotuneTargetUs, autotuneWarnings } from '../config/autotune-parameter';
import { autotuneStep, candidateDelays, DWELL_US, initialAutotuneState } from './policy';
import { LIVE_LIMITS } from '../live-config/limits';

const withTarget = (v: string) => `${BASE}\nparameters { key: "${AUTOTUNE_PARAMETER}" value: { string_value: "${v}" } }`;

test('autotune_p99_ms: a number of ms is accepted and read in µs', () => {
  assert.deepEqual(issuesOf(withTarget('3')), []);
  assert.equal(autotuneTargetUs({ parameters: { [AUTOTUNE_PARAMETER]: { string_value: '1.2' } } }), 1200);
  assert.equal(autotuneTargetUs({}), undefined);
});

for (const bad of ['abc', '', '-1', '0', 'NaN', '1e999', '0.0001', '1e3', ' 3']) {
  test(`autotune_p99_ms: ${JSON.stringify(bad)} is refused naming the parameter`, () => {
    const issues = issuesOf(withTarget(bad));
    assert.equal(issues.length, 1, JSON.stringify(issues));
    assert.match(issues[0].message, /parameter 'autotune_p99_ms' of model 'm' must be a number >= 0.001 and <= 3600000 \(plain digits, at most 3 decimals\)/);
    assert.equal(issues[0].path, `parameters.${AUTOTUNE_PARAMETER}`);
  });
}

test('a target below the batch-1 latency is accepted with a warning', () => {
  const config = { max_batch_size: 8, parameters: { [AUTOTUNE_PARAMETER]: { string_value: '0.1' } } };
  const [w] = autotuneWarnings(config, 249);
  assert.match(w, /below the model's batch-1 latency .* cannot be met/);
  assert.deepEqual(autotuneWarnings(config, 50), []);
  assert.match(autotuneWarnings({ ...config, max_batch_size: 0 })[0], /no effect/);
});

test('candidate delays stay inside LIVE_LIMITS, even for a huge target, and stay few', () => {
  const c = candidateDelays(10 * LIVE_LIMITS.max_queue_delay_microseconds.max);
  assert.ok(c.length < 1000);
  assert.ok(c.every((d) => d >= LIVE_LIMITS.max_queue_delay_microseconds.min && d <= LIVE_LIMITS.max_queue_delay_microseconds.max && d % LIVE_LIMITS.max_queue_delay_microseconds.step === 0));
});

test('the policy is pure: the same inputs give the same step', () => {
  const w = { duration_us: 1e6, arrivals: 9000, completed: 9000, p99_us: 2500, over_target: 20, batches: 1500, batch_samples: 9000, busy_us: 400_000, compute_by_size: {} };
  const view = { delay_us: 500, preferred: [64], max_batch_size: 64, instances: 1 };
  const cost = (n: number) => 250 + 7.7 * n;
  // a tuner that last changed something a dwell ago
  const settled = { ...initialAutotuneState(3000), since_change_us: DWELL_US };
  const a = autotuneStep(settled, w, view, cost);
  const b = autotuneStep(settled, w, view, cost);
  assert.deepEqual(a, b);
  assert.ok(a.decision, 'well below the target at 9000/s: the delay grows');
  assert.ok(a.decision.new.max_queue_delay_microseconds > 500 && a.decision.new.max_queue_delay_microseconds <= 500 + 0.25 * 3000, JSON.stringify(a.decision));
  // within the dwell the same window changes nothing
  assert.equal(autotuneStep(initialAutotuneState(3000), w, view, cost).decision, undefined);
});

test('candidate delays are all below the target (a delay at the target would spend it waiting)', () => {
  for (const t of [100, 150, 1200, 3000, 10_000, 10_050, 47_000]) {
    const c = candidateDelays(t);
    assert.ok(c.length > 0 && c.every((d) => d < t || d === 0), `${t}: ${c.slice(-3)}`);
  }
});
