/**
 * The real server's mechanisms the simulator models: RealClock's timer semantics, executor prefetch and
 * the main thread's CPU load. Virtual clock only.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { realClockFireUs, type TimerProfile } from './real-clock-model';
import { StallSchedule } from './stalls';
import { Rng } from '../load/rng';
import { CpuHost, MAIN_LOAD_WINDOW_US } from './cpu-host';
import { idlePenaltyUs } from './cost-model';
import { simulate } from './simulation';
import type { Scenario } from '../load/scenario';

const fixed = (v: number) => ({ '0': v, '1': v });

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
  const run = (timers?: TimerProfile) => simulate({ scenario: poisson(1000, 1), configs: mlp(2000), cost: { fixed_us: 100, per_item_us: 5 }, seed: 2, ...(timers ? { timers } : {}) });
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

test('prefetch: with room behind the running batch, full batches are handed over while it computes', () => {
  const run = (prefetch: number) => simulate({ scenario: poisson(20000, 0.3), configs: mlp(0, [8]), cost: { fixed_us: 300, per_item_us: 10 }, seed: 3, prefetch });
  const held = (r: ReturnType<typeof run>) => r.events.filter((e) => e.type === 'batch.started' && e.prefetched).length;
  assert.ok(held(run(1)) > 10, 'batches held behind a running one');
  assert.equal(held(run(0)), 0);
  const r = run(1).summary;
  assert.equal(r.requests.completed, r.requests.sent, 'every request answered once');
});

test('a held batch takes the held table\'s time: it begins when the batch before ends, without a hand-off', () => {
  // overload: every batch after the first is handed over while the one before computes
  const run = (held?: Record<string, number>) => simulate({ scenario: poisson(50_000, 0.1), configs: mlp(0, [8]), cost: { table: { '8': 400 }, ...(held ? { held_table: held } : {}) }, seed: 3, prefetch: 1 });
  // µs of each batch, split by whether its instance began it without a hand-off (batch.started prefetched)
  const split = (r: ReturnType<typeof run>) => {
    const heldIds = new Set(r.events.flatMap((e) => (e.type === 'batch.started' && e.prefetched ? [e.batch_id] : [])));
    const done = r.events.flatMap((e) => (e.type === 'batch.completed' ? [e] : []));
    return { held: done.filter((e) => heldIds.has(e.batch_id)), sent: done.filter((e) => !heldIds.has(e.batch_id)) };
  };
  const plain = split(run());
  const quick = split(run({ '8': 300 }));
  assert.ok(plain.held.length > 100 && plain.held.every((e) => e.compute_us === (e.size * 400) / 8), 'without a held table: the table');
  assert.ok(quick.held.length > 100 && quick.held.every((e) => e.compute_us === (e.size * 300) / 8), 'held: the held table');
  assert.ok(quick.sent.length > 0 && quick.sent.every((e) => e.compute_us === (e.size * 400) / 8), 'sent to an idle instance: the table');
  const ratio = run({ '8': 300 }).summary.throughput_per_s / run().summary.throughput_per_s;
  assert.ok(ratio > 1.25 && ratio < 1.4, `throughput under overload follows the instance's cycle: ${ratio}`);
});

test('the main thread\'s load follows the request rate and slows CPU batches on a full host', () => {
  const host = new CpuHost(1, 50);
  // 10k requests/s for 50 ms: the load settles at 10k/s x 50 µs = half a core
  for (let t = 0; t <= 50_000; t += 100) host.request(t);
  const slow = host.begin(50_000);
  assert.ok(Math.abs(slow - 1.5) < 0.05, `one instance + half a core of main thread on one core: ${slow}`);
  host.end();
  // the load decays once requests stop
  assert.ok(host.begin(50_000 + 10 * MAIN_LOAD_WINDOW_US) < 1.01);
  assert.equal(new CpuHost(2, 50).begin(0), 1, 'no requests, no main-thread load');
});

test('a spinning main thread holds a core: two CPU instances on two cores then run at 2/3 speed, in a simulation too', () => {
  const host = new CpuHost(2, 0);
  assert.equal(host.begin(0), 1);
  assert.equal(host.begin(0, true), 1.5, 'two instances and the spinning main thread on two cores');
  host.end();
  host.end();
  // overload on two instances: every batch after the first is held and starts while the load driver's next
  // send (a sub-millisecond wait) keeps RealClock turning
  const run = (spinTakesCore: boolean) => simulate({
    scenario: poisson(60_000, 0.2), configs: { ...mlp(0, [8]), instance_group: [{ count: 2, kind: 'KIND_CPU' }] },
    cost: { table: { '8': 400 }, kind: 'KIND_CPU' }, seed: 3, cores: 2, timers: { coarse_late_us: fixed(100), fine_late_us: fixed(1) }, spinTakesCore, record: false,
  }).summary;
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
    simulate({ scenario: poisson(2000, 1), configs: mlp(0), cost: { fixed_us: 150, per_item_us: 5 }, seed: 5, record: false, ...(stalls ? { stalls } : {}) }).summary;
  const calm = run();
  const stalled = run({ rate_per_s: 50, duration_us: { '0': 500, '0.5': 2000, '1': 8000 } });
  assert.ok(stalled.avg_batch_size > 1.1 * calm.avg_batch_size, `${calm.avg_batch_size} -> ${stalled.avg_batch_size}`);
  // a request arriving in a stall is queued at its end (it waits outside the server); one already queued
  // or computing waits it out: the tail
  assert.ok(stalled.latency_us.p99 > calm.latency_us.p99 && stalled.latency_us.max > 3000, `p99 ${calm.latency_us.p99} -> ${stalled.latency_us.p99}, max ${stalled.latency_us.max}`);
  assert.equal(stalled.requests.completed, stalled.requests.sent);
});

test('cost after idle: a batch after its instance sat idle pays the measured wake-up, back-to-back ones do not', () => {
  const cost = { table: { '1': 100 }, per_item_us: 0, idle_penalty_us: { '0': 0, '1000': 50, '10000': 200 } };
  assert.equal(idlePenaltyUs(cost, 0), 0);
  assert.equal(idlePenaltyUs(cost, 500), 25);
  assert.equal(idlePenaltyUs(cost, 1e9), 200, 'flat beyond the last entry');
  assert.equal(idlePenaltyUs({ fixed_us: 1 }, 5000), 0);
  // 20 req/s: every batch runs after ~50 ms idle; at an overload they run back to back
  const mean = (rate: number) => simulate({ scenario: poisson(rate, 1), configs: mlp(0), cost, seed: 1, record: false }).summary.compute_us.mean;
  assert.ok(mean(20) > 250 && mean(20) <= 300, `sparse: ${mean(20)}`);
  assert.ok(mean(50_000) < 110, `back to back: ${mean(50_000)}`);
});
