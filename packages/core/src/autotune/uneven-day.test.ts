/**
 * The acceptance on the simulator (virtual clock, seeded): an uneven day (quiet 300/s, rush 9000/s,
 * quiet 300/s) on the bundled MLP with its shipped calibration and one instance, the shipped batching
 * (preferred 8/16/32, delay 2000 µs), autotuned at 1.2 ms and 3 ms against a sweep of static delays on
 * the same arrivals, phase by phase. Compute per request = instance busy time / requests.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bundledCalibration, calibratedCost, simulate, type PhaseFigures } from '../sim/index';
import type { Scenario } from '../load/scenario';
import { LIVE_LIMITS } from '../live-config/limits';
import { DWELL_US } from './policy';

const PHASE_S = 12;
const scenario: Scenario = {
  name: 'uneven-day',
  phases: [
    { type: 'poisson', rate: 300, duration_s: PHASE_S, label: 'quiet' },
    { type: 'poisson', rate: 9000, duration_s: PHASE_S, label: 'rush' },
    { type: 'poisson', rate: 300, duration_s: PHASE_S, label: 'quiet again' },
  ],
};
const cal = bundledCalibration('mlp_classifier')!;
const cost = calibratedCost('mlp_classifier')!;
const config = (delayUs: number, instances = 1) => ({
  name: 'mlp_classifier', max_batch_size: 64,
  dynamic_batching: { preferred_batch_size: [8, 16, 32], max_queue_delay_microseconds: delayUs },
  instance_group: [{ count: instances, kind: 'KIND_CPU' }],
});
const run = (delayUs: number, autotune: number | false, instances = 1) =>
  simulate({ scenario, configs: config(delayUs, instances), cost, cores: cal.host.cpus, seed: 7, record: false, autotune });
/** the day's compute per request: every phase's busy time over every phase's requests */
const dayCompute = (phases: PhaseFigures[]) =>
  phases.reduce((s, p) => s + p.compute_per_request_us * p.requests, 0) / phases.reduce((s, p) => s + p.requests, 0);

const STATIC_DELAYS = [0, 100, 200, 500, 1000, 2000, 4000, 8000];
const sweep = STATIC_DELAYS.map((d) => ({ delay: d, ...run(d, false) }));
/** the comparison: two instances, where a static delay (500 µs) meets 1.2 ms in every phase */
const SWEEP_2 = [400, 500, 600, 700, 1500, 2000, 2500, 3000];
const sweep2 = SWEEP_2.map((d) => ({ delay: d, ...run(d, false, 2) }));

for (const targetMs of [1.2, 3]) {
  test(`two instances at ${targetMs} ms: no more instance time a request than the best static delay meeting the target in every phase`, () => {
    const target = targetMs * 1000;
    const meeting = sweep2.filter((s) => s.phases.every((p) => p.p99_us <= target));
    // not vacuous: some static delay meets the target all day (500 µs at 1.2 ms, as in the issue)
    assert.ok(meeting.length > 0, sweep2.map((s) => `${s.delay}: ${s.phases.map((p) => p.p99_us).join('/')}`).join('; '));
    const best = meeting.reduce((a, b) => (dayCompute(b.phases) < dayCompute(a.phases) ? b : a));
    const auto = run(2000, target, 2);
    const table = auto.phases.map((p) => `${p.label}: p99 ${p.p99_us} µs, ${p.compute_per_request_us} µs/req, delay ${p.delay_us}`).join('; ');
    const ratio = dayCompute(auto.phases) / dayCompute(best.phases);
    assert.ok(ratio <= 1.0, `autotuned ${dayCompute(auto.phases).toFixed(1)} µs/req = ${ratio.toFixed(3)}x static ${best.delay} µs (${dayCompute(best.phases).toFixed(1)}); ${table}`);
    // and it meets the target where the static delay does, within the 5% a window's noise allows
    auto.phases.forEach((p) => assert.ok(p.p99_us <= target * 1.05, `${p.label}: p99 ${p.p99_us} µs (${table})`));
    assert.equal(auto.summary.requests.rejected + auto.summary.requests.failed, 0);
    // never a delay at or above the target
    assert.ok(auto.decisions.every((d) => d.new.max_queue_delay_microseconds < target), JSON.stringify(auto.decisions.map((d) => d.new)));
  });
}

test('the static sweep shows the issue\'s trade-off: no single delay is right all day', () => {
  const at = (d: number) => sweep.find((s) => s.delay === d)!;
  // delay 0 is fastest when quiet, 8 ms batches the rush most cheaply and is slowest when quiet
  assert.ok(at(0).phases[0].p99_us < at(8000).phases[0].p99_us);
  assert.ok(at(8000).phases[1].compute_per_request_us < at(0).phases[1].compute_per_request_us / 2);
  assert.ok(Math.abs(dayCompute(at(0).phases) - 118) < 10, `delay 0: ${dayCompute(at(0).phases)} µs per request`);
  assert.ok(Math.abs(dayCompute(at(8000).phases) - 45) < 5, `delay 8000: ${dayCompute(at(8000).phases)} µs per request`);
});

for (const targetMs of [1.2, 3]) {
  test(`autotuned at ${targetMs} ms: p99 within 5% of the target in every phase the model can meet it, less compute than the best static delay`, () => {
    const target = targetMs * 1000;
    const auto = run(2000, target);
    const table = auto.phases.map((p) => `${p.label}: p99 ${p.p99_us} µs, ${p.compute_per_request_us} µs/req, delay ${p.delay_us}`).join('; ');
    assert.equal(auto.summary.requests.rejected + auto.summary.requests.failed, 0, 'the tuner fails no request');
    for (const d of auto.decisions) {
      const v = d.new.max_queue_delay_microseconds;
      assert.ok(v >= LIVE_LIMITS.max_queue_delay_microseconds.min && v <= LIVE_LIMITS.max_queue_delay_microseconds.max);
    }
    // per phase: where some static delay meets the target, the tuner keeps p99 within 5% of it; where none
    // does (the rush at 1.2 ms: the shipped calibration's interruptions put every delay's p99 above 1.3 ms),
    // it does its best: no worse than 5% over the best static delay's p99 in that phase
    auto.phases.forEach((p, i) => {
      const bestStatic = Math.min(...sweep.map((s) => s.phases[i].p99_us));
      const bound = bestStatic <= target ? target * 1.05 : bestStatic * 1.05;
      assert.ok(p.p99_us <= bound, `${p.label}: p99 ${p.p99_us} µs > ${bound} (${table})`);
    });
    const meeting = sweep.filter((s) => s.phases.every((p) => p.p99_us <= target));
    const auto$ = dayCompute(auto.phases);
    if (meeting.length > 0) {
      const best = Math.min(...meeting.map((s) => dayCompute(s.phases)));
      assert.ok(auto$ <= best, `autotuned ${auto$.toFixed(1)} µs/req > best static ${best.toFixed(1)} (${table})`);
      if (targetMs === 3) assert.ok(auto$ <= best * 0.95, `autotuned ${auto$.toFixed(1)} µs/req is not 5% below ${best.toFixed(1)}`);
    } else {
      // no static delay meets the target all day; the tuner still spends less than the delays that are
      // fastest in each phase would together (its quiet phases within target, its rush at the best p99)
      const worstCase = Math.max(...sweep.filter((s) => s.delay <= 500).map((s) => dayCompute(s.phases)));
      assert.ok(auto$ < worstCase, `autotuned ${auto$.toFixed(1)} µs/req`);
    }
    assert.equal(targetMs === 3 ? meeting.length > 0 : true, true, 'at 3 ms some static delay meets the target');
  });
}

test('steady traffic: at most one change per dwell, none back and forth, and then it holds', () => {
  const steady: Scenario = { name: 'steady-rush', phases: [{ type: 'poisson', rate: 9000, duration_s: 40 }] };
  const r = simulate({ scenario: steady, configs: config(2000), cost, cores: cal.host.cpus, seed: 3, record: false, autotune: 3000 });
  const log = JSON.stringify(r.decisions.map((d) => [d.t_us / 1e6, d.new]));
  for (let i = 1; i < r.decisions.length; i++) assert.ok(r.decisions[i].t_us - r.decisions[i - 1].t_us >= DWELL_US, log);
  const delays = [2000, ...r.decisions.map((d) => d.new.max_queue_delay_microseconds)];
  for (let i = 2; i < delays.length; i++) assert.ok(!(delays[i] === delays[i - 2] && delays[i] !== delays[i - 1]), log);
  assert.equal(r.decisions.filter((d) => d.t_us > 25_000_000).length, 0, log);
  assert.ok(r.summary.latency_us.p99 <= 3000 * 1.05);
});

test('a target below the batch-1 latency: the smallest delay, every request answered', () => {
  const trickle: Scenario = { name: 'trickle', phases: [{ type: 'poisson', rate: 200, duration_s: 5 }] };
  const r = simulate({ scenario: trickle, configs: config(2000), cost, cores: cal.host.cpus, seed: 1, record: false, autotune: 100 });
  assert.ok(r.decisions.length > 0);
  assert.ok(r.decisions.every((d) => d.new.max_queue_delay_microseconds === 0), JSON.stringify(r.decisions.map((d) => d.new)));
  assert.equal(r.summary.requests.completed, r.summary.requests.sent);
  // and it says so, naming the limit: no batching setting helps a request that alone takes the target
  const status = r.autotune[0].status;
  assert.equal(status.state, 'not_met', JSON.stringify(status));
  if (status.state === 'not_met') assert.equal(status.limit, 'latency');
});

test('the tuner reacts to a rate change within seconds', () => {
  const jump: Scenario = { name: 'jump', phases: [{ type: 'poisson', rate: 300, duration_s: 8 }, { type: 'poisson', rate: 9000, duration_s: 8 }] };
  const r = simulate({ scenario: jump, configs: config(0), cost, cores: cal.host.cpus, seed: 5, record: false, autotune: 1200 });
  const after = r.decisions.filter((d) => d.t_us > 8_000_000);
  assert.ok(after.length > 0 && after[0].t_us <= 11_000_000, `first decision after the jump: ${after[0]?.t_us}`);
  assert.ok(after[0].reason.rate_per_s > 5000);
});
