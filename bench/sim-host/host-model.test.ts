/**
 * The real server's mechanisms the bench's host model adds to the simulation: RealClock's timer
 * semantics, main-thread stalls and the main thread's CPU load. Virtual clock only.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Rng } from '@inferscope/core/load';
import type { Scenario } from '@inferscope/core/load';
import { CpuHost, simulate, type SimulationOptions } from '@inferscope/core/sim';
import { realClockFireUs } from './real-clock-model';
import type { TimerProfile } from './schemas';
import { StallSchedule } from './stalls';
import { MAIN_LOAD_WINDOW_US, MainThreadLoad } from './main-thread-load';
import { hostModel, type HostModelOptions } from './host-model';

const fixed = (v: number) => ({ '0': v, '1': v });

/** simulate with the host model made of `host` */
const simulateOn = (o: Omit<SimulationOptions, 'hostModel'>, host: HostModelOptions) => simulate({ ...o, hostModel: hostModel(host) });

test('RealClock: waits of 1 ms or more sleep whole milliseconds, shorter ones fire on the next turn, never early', () => {
  assert.equal(realClockFireUs(0, 1500, 130, 1), 2130, '1.5 ms sleeps 2 ms, then the wake-up latency');
  assert.equal(realClockFireUs(0, 2000, 130, 1), 2130);
  assert.equal(realClockFireUs(0, 500, 130, 2), 502, 'sub-millisecond: checked per turn');
  assert.equal(realClockFireUs(0, 2000, -300, 1), 2001, 'a wake-up before the time is finished turn by turn');
  assert.equal(realClockFireUs(100, 50, 0, 3), 103, 'a past deadline fires on the next turn');
});

const poisson = (rate: number, seconds: number): Scenario => ({ name: 't', seed: 1, phases: [{ type: 'poisson', rate, duration_s: seconds }] });
const mlp = (delay: number, preferred: number[] = []) => ({
  name: 'm', max_batch_size: 32, dynamic_batching: { max_queue_delay_microseconds: delay, preferred_batch_size: preferred }, instance_group: [{ count: 1, kind: 'KIND_CPU' }],
});

test('modelled timers make delay batches leave late by the profile, and the batches grow for it', () => {
  const profile: TimerProfile = { coarse_late_us: fixed(300), fine_late_us: fixed(0) };
  const run = (timers?: TimerProfile) => simulateOn({ scenario: poisson(1000, 1), configs: mlp(2000), cost: { fixed_us: 100, per_item_us: 5 }, seed: 2 }, timers ? { timers } : {});
  const ideal = run();
  const real = run(profile);
  const waits = (r: ReturnType<typeof run>) => r.events.flatMap((e) => (e.type === 'batch.formed' && e.trigger === 'delay' ? [e.oldest_wait_us] : []));
  assert.ok(Math.max(...waits(ideal)) - 2000 < 1, 'ideal timers fire on time');
  const w = waits(real);
  assert.ok(Math.min(...w) >= 2000, 'never early');
  // armed at the first arrival (2 ms left) it sleeps 2 ms + 300 µs; armed later with < 1 ms left it is on time
  assert.ok(w.filter((x) => x >= 2300).length > w.length / 2, 'most delay batches leave 300 µs late');
  assert.ok(real.summary.avg_batch_size > ideal.summary.avg_batch_size);
});

test('the main thread\'s load follows the request rate and slows CPU batches on a full host', () => {
  const host = new CpuHost(1);
  const main = new MainThreadLoad(50);
  // 10k requests/s for 50 ms: the load settles at 10k/s x 50 µs = half a core
  for (let t = 0; t <= 50_000; t += 100) main.request(t);
  const slow = host.begin(main.at(50_000));
  assert.ok(Math.abs(slow - 1.5) < 0.05, `one instance + half a core of main thread on one core: ${slow}`);
  host.end();
  // the load decays once requests stop
  assert.ok(host.begin(main.at(50_000 + 10 * MAIN_LOAD_WINDOW_US)) < 1.01);
  host.end();
  assert.equal(new CpuHost(2).begin(new MainThreadLoad(50).at(0)), 1, 'no requests, no main-thread load');
  // in a simulation: a CPU model on one core serves less when the main thread works 50 µs a request
  const run = (mainThreadUsPerRequest: number) => simulateOn({
    scenario: poisson(5000, 0.3), configs: mlp(0, [8]), cost: { table: { '8': 400 }, kind: 'KIND_CPU' }, seed: 3, cores: 1, record: false,
  }, { mainThreadUsPerRequest }).summary;
  assert.ok(run(50).compute_us.mean > 1.1 * run(0).compute_us.mean, 'the main thread\'s work slows the instance on a full host');
});

test('a spinning main thread holds a core: two CPU instances on two cores then run at 2/3 speed, in a simulation too', () => {
  const host = new CpuHost(2);
  assert.equal(host.begin(), 1);
  assert.equal(host.begin(1), 1.5, 'two instances and the spinning main thread on two cores');
  host.end();
  host.end();
  // overload on two instances: every batch after the first is held and starts while the load driver's next
  // send (a sub-millisecond wait) keeps RealClock turning
  const run = (spinTakesCore: boolean) => simulateOn({
    scenario: poisson(60_000, 0.2), configs: { ...mlp(0, [8]), instance_group: [{ count: 2, kind: 'KIND_CPU' }] },
    cost: { table: { '8': 400 }, kind: 'KIND_CPU' }, seed: 3, cores: 2, record: false,
  }, { timers: { coarse_late_us: fixed(100), fine_late_us: fixed(1) }, spinTakesCore }).summary;
  const ratio = run(false).throughput_per_s / run(true).throughput_per_s;
  assert.ok(ratio > 1.3 && ratio < 1.55, `the spinning main thread takes a third of the instances' cores: ${ratio}`);
});

test('main-thread stalls: what falls in one happens at its end; none without a rate', () => {
  const s = new StallSchedule({ rate_per_s: 100, duration_us: fixed(2000) }, new Rng(4));
  let inside = 0;
  for (let t = 0; t < 1_000_000; t += 97) {
    const r = s.releaseAt(t);
    assert.ok(r >= t && r - t <= 2000, 'never early, never beyond the stall');
    if (r > t) inside++;
  }
  // 100 stalls/s of 2 ms: ~20% of the time stalled (a little less: a stall starts only after the last one ends)
  const share = inside / (1_000_000 / 97);
  assert.ok(share > 0.12 && share < 0.25, `stalled share ${share}`);
  const none = new StallSchedule({ rate_per_s: 0, duration_us: fixed(0) }, new Rng(1));
  assert.equal(none.releaseAt(123), 123);
});

test('stalls delay arrivals and completions together: bursts form bigger batches and a latency tail', () => {
  const run = (stalls?: { rate_per_s: number; duration_us: Record<string, number> }) =>
    simulateOn({ scenario: poisson(2000, 1), configs: mlp(0), cost: { fixed_us: 150, per_item_us: 5 }, seed: 5, record: false }, stalls ? { stalls } : {}).summary;
  const calm = run();
  const stalled = run({ rate_per_s: 50, duration_us: { '0': 500, '0.5': 2000, '1': 8000 } });
  assert.ok(stalled.avg_batch_size > 1.1 * calm.avg_batch_size, `${calm.avg_batch_size} -> ${stalled.avg_batch_size}`);
  // a request arriving in a stall is queued at its end (it waits outside the server); one already queued
  // or computing waits it out: the tail
  assert.ok(stalled.latency_us.p99 > calm.latency_us.p99 && stalled.latency_us.max > 3000, `p99 ${calm.latency_us.p99} -> ${stalled.latency_us.p99}, max ${stalled.latency_us.max}`);
  assert.equal(stalled.requests.completed, stalled.requests.sent);
});
