/**
 * What the simulator models of the server's main thread beyond its CPU load: garbage collections that
 * follow the request rate, stall sources combined, RealClock's spinning for sub-millisecond waits and the
 * wait of an instance woken meanwhile. Virtual clock only.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { VirtualClock } from '@inferscope/core/clock';
import { Rng } from '@inferscope/core/load';
import type { Scenario } from '@inferscope/core/load/scenario.ts';
import { CpuHost, simulate, validateCost, type CostModel } from '@inferscope/core/sim';
import { GcPauses, validateGcProfile } from './gc-pauses';
import { combinedStalls, StallSchedule } from './stalls';
import { ON_TIME, RealClockModel } from './real-clock-model';
import { HostSimExecutor, hostModel, SPIN_WAKE_MIN_IDLE_US, spinWakeUs, type MainThreadHooks } from './host-model';
import { validateHostCalibration, type WakeCost } from './schemas';

/** an executor on `clock` with the modelled main thread `main` and the wake-ups `wake` */
const hostExecutor = (clock: VirtualClock, cost: CostModel, wake: WakeCost, main: MainThreadHooks, o: { host?: CpuHost; prefetch?: number } = {}) =>
  new HostSimExecutor<null>(clock, cost, new Rng(1), o, { ...main, wake });

const fixed = (v: number) => ({ '0': v, '1': v });

test('GC: a pause every requests_per_gc requests; what falls in one happens at its end', () => {
  const gc = new GcPauses({ requests_per_gc: 10, pause_us: fixed(300) }, new Rng(3));
  const starts: number[] = [];
  for (let i = 0; i < 100; i++) {
    const t = i * 1000; // a request every ms
    assert.equal(gc.releaseAt(t), t, 'nothing paused before the request that starts a pause');
    gc.request(t);
    if (gc.releaseAt(t + 1) === t + 300) starts.push(t);
  }
  // exactly one pause per 10 requests, each 300 µs from the request that started it
  assert.equal(starts.length, 10, `pauses started at ${starts}`);
  assert.ok(starts.every((s, i) => i === 0 || s - starts[i - 1] === 10_000), 'ten requests apart');
  assert.equal(gc.releaseAt(starts[0] + 299), starts[0] + 300, 'inside: released at the end');
  assert.equal(gc.releaseAt(starts[0] + 300), starts[0] + 300, 'the end itself is free');
  assert.deepEqual(validateGcProfile({ requests_per_gc: 0.5, pause_us: fixed(1) }), ['gc.requests_per_gc: must be a number >= 1']);
  assert.throws(() => validateHostCalibration({ format: 'inferscope-host-calibration', model: 'm', backend: 'b', measured_at: 'x', gc: { requests_per_gc: 10 } }), /gc\.pause_us/);
});

test('stall sources combined: a release that lands in another source\'s stall moves on to its end', () => {
  const gc = new GcPauses({ requests_per_gc: 1, pause_us: fixed(500) }, new Rng(1));
  gc.request(1000); // pause [1000, 1500)
  const host = { releaseAt: (t: number) => (t >= 1400 && t < 2000 ? 2000 : t) }; // a host stall [1400, 2000)
  const both = combinedStalls([gc, host]);
  assert.equal(both.releaseAt(1200, 1200), 2000, 'GC end 1500 falls in the host stall');
  assert.equal(both.releaseAt(900, 900), 900);
  const none = combinedStalls([new StallSchedule({ rate_per_s: 0, duration_us: fixed(0) }, new Rng(1))]);
  assert.equal(none.releaseAt(5, 5), 5);
});

test('RealClock model: spinning while a sub-millisecond wait is pending, not for a coarse one; a stall begun after arming still defers the timer', () => {
  const clock = new VirtualClock();
  const gc = new GcPauses({ requests_per_gc: 1, pause_us: fixed(2000) }, new Rng(1));
  const rc = new RealClockModel(clock, ON_TIME, new Rng(2), combinedStalls([gc]));
  let fired = -1;
  rc.setTimer(5000, () => (fired = clock.now()));
  assert.equal(rc.spinning(), false, 'a 5 ms wait sleeps');
  const fine = rc.setTimer(400, () => undefined);
  assert.equal(rc.spinning(), true, 'a 0.4 ms wait turns the loop');
  rc.clearTimer(fine);
  assert.equal(rc.spinning(), false, 'cleared: no longer turning');
  rc.setTimer(300, () => undefined);
  clock.advanceTo(300);
  assert.equal(rc.spinning(), false, 'fired: no longer turning');
  clock.advanceTo(4000);
  gc.request(4000); // a collection from 4 ms to 6 ms, begun after the 5 ms timer was armed
  clock.advanceTo(10_000);
  assert.equal(fired, 6000, 'the 5 ms timer fires at the end of the collection');
});

test('RealClock model: a setTimeout fires in the first loop iteration after it expires; only one the loop sleeps through waits for the wake-up', () => {
  const profile = { coarse_late_us: fixed(400), fine_late_us: fixed(0) };
  const clock = new VirtualClock();
  const rc = new RealClockModel(clock, profile, new Rng(1));
  const fired: Record<string, number> = {};
  const at = (name: string) => () => (fired[name] = clock.now());
  // asleep through the expiry: the measured wake-up comes on top of the 2 ms sleep
  rc.setTimer(1500, at('asleep'));
  clock.advanceTo(3000);
  assert.equal(fired.asleep, 2400);
  // expiring while a sub-millisecond wait turns the loop: on time
  rc.setTimer(4000, at('turning'));
  clock.advanceTo(3800);
  rc.setTimer(4300, () => undefined);
  clock.advanceTo(6000);
  assert.equal(fired.turning, 4000);
  // another timer runs after the expiry, before the wake-up: the loop is up, the expired one runs then
  rc.setTimer(8000, at('woken'));
  clock.advanceTo(8050);
  rc.setTimer(8150, at('other'));
  clock.advanceTo(9000);
  assert.equal(fired.other, 8150);
  assert.equal(fired.woken, 8150, 'expired at 8000, asleep until the other timer ran');
  // a worker's answer taken in (activity) wakes it as well; a cleared timer is forgotten
  rc.setTimer(10_000, at('answer'));
  const cleared = rc.setTimer(10_000, at('cleared'));
  rc.clearTimer(cleared);
  clock.advanceTo(10_100);
  rc.activity(10_100);
  clock.advanceTo(12_000);
  assert.equal(fired.answer, 10_100);
  assert.equal(fired.cleared, undefined);
  assert.equal(rc.sleepingCount, 0);
  // woken, it fires a turn later; more activity before then does not push it back
  const c2 = new VirtualClock();
  const turnLate = new RealClockModel(c2, { coarse_late_us: fixed(400), fine_late_us: fixed(50) }, new Rng(1));
  let at2 = -1;
  turnLate.setTimer(1500, () => (at2 = c2.now()));
  c2.advanceTo(2100);
  turnLate.activity(2100);
  c2.advanceTo(2120);
  turnLate.activity(2120);
  c2.advanceTo(3000);
  assert.equal(at2, 2150);
});

test('spin wake: a batch handed to an idle instance pays the measured wait only while the main thread spins', () => {
  const clock = new VirtualClock();
  const rc = new RealClockModel(clock, ON_TIME, new Rng(2));
  const ex = hostExecutor(clock, { table: { '1': 100 } }, { spin_wake_us: fixed(700) }, { spinning: () => rc.spinning() }, { prefetch: 1 });
  const info = (name: string) => ({ name, group: 'g', kind: 'KIND_CPU', device: 'cpu', index: 0 });
  const run = (instance: string) => {
    const start = clock.now();
    let took = -1;
    ex.executeWithCallback(info(instance), [{ id: 'r', batchSize: 1, shapeKey: '', payload: null }], () => (took = clock.now() - start));
    return () => took;
  };
  clock.advanceTo(10_000);
  const asleep = run('a');
  clock.advanceTo(20_000);
  assert.equal(asleep(), 100, 'main thread asleep: the table');
  rc.setTimer(20_500, () => undefined); // the next send 0.5 ms away: the main thread spins
  const spun = run('b');
  clock.advanceTo(30_000);
  assert.equal(spun(), 800, 'main thread spinning: + the wake wait');
  rc.setTimer(30_500, () => undefined);
  run('b');
  const right = run('b'); // held behind the running batch: the worker goes straight on, no wake
  clock.advanceTo(31_000);
  assert.equal(right(), 100 + 700 + 100, 'behind one that waited 700: starts straight after it');
  // the spin-wake draw is the batch's whole scatter: it replaces the spread, it does not come on top
  const spreadClock = new VirtualClock();
  const spreadRc = new RealClockModel(spreadClock, ON_TIME, new Rng(2));
  const both = hostExecutor(spreadClock, { table: { '1': 100 }, spread: fixed(2) }, { spin_wake_us: fixed(50) }, { spinning: () => spreadRc.spinning() }, { prefetch: 1 });
  const timeOne = (name: string) => {
    const t = spreadClock.now();
    let took = -1;
    both.executeWithCallback(info(name), [{ id: 's', batchSize: 1, shapeKey: '', payload: null }], () => (took = spreadClock.now() - t));
    spreadClock.advanceTo(t + 5000);
    return took;
  };
  spreadClock.advanceTo(5000);
  assert.equal(timeOne('x'), 200, 'main asleep: the median x the spread');
  spreadRc.setTimer(spreadClock.now() + 500, () => undefined);
  assert.equal(timeOne('y'), 150, 'main spinning: the median + the spin-wake draw');
  // the draw was measured on the real server with whatever contention its batches met: the host's
  // slowdown does not come on top of it (two CPU instances and a spinning main thread on 2 cores: x1.5)
  const hostClock = new VirtualClock();
  const hostRc = new RealClockModel(hostClock, ON_TIME, new Rng(2));
  const shared = hostExecutor(hostClock, { table: { '1': 100 }, kind: 'KIND_CPU' }, { spin_wake_us: fixed(50) }, { spinning: () => hostRc.spinning() }, { host: new CpuHost(2) });
  const times: Record<string, number> = {};
  const at = (name: string) => {
    const t = hostClock.now();
    shared.executeWithCallback(info(name), [{ id: name, batchSize: 1, shapeKey: '', payload: null }], () => (times[name] = hostClock.now() - t));
  };
  hostClock.advanceTo(5000);
  at('p'); // main asleep: one instance, no contention
  hostClock.advanceTo(5010);
  hostRc.setTimer(5500, () => undefined);
  at('q'); // woken while p runs and the main thread spins
  hostClock.advanceTo(9000);
  assert.equal(times.p, 100);
  assert.equal(times.q, 150, 'the median + the draw, not 1.5 x the median + the draw');
  const quick = spinWakeUs({ spin_wake_us: { '0': -50, '1': -10 } }, new Rng(1));
  assert.ok(quick >= -50 && quick <= -10, `a spinning main thread keeps the cores awake: a quicker hand-off (${quick})`);
  // a draw below 0 never makes a batch take less than 1 µs
  const fast = hostExecutor(clock, { table: { '1': 10 } }, { spin_wake_us: fixed(-500) }, { spinning: () => true }, { prefetch: 1 });
  const t0 = clock.now();
  let tookFast = -1;
  fast.executeWithCallback(info('c'), [{ id: 'q', batchSize: 1, shapeKey: '', payload: null }], () => (tookFast = clock.now() - t0));
  clock.advanceTo(t0 + 1000);
  assert.equal(tookFast, 1);
  assert.ok(SPIN_WAKE_MIN_IDLE_US > 0);
  assert.throws(() => validateHostCalibration({ format: 'inferscope-host-calibration', model: 'm', backend: 'b', measured_at: 'x', spin_wake_us: { '0': 5 } }), /spin_wake_us/);
  // the product's cost model has no host fields: a cost naming one is refused, not silently ignored
  assert.throws(() => validateCost({ table: { '1': 1 }, spin_wake_us: fixed(5) }), /spin_wake_us/);
});

test('spin wake in a simulation: sub-millisecond sends make moderate traffic slower; sparse sends (all sleeping) do not', () => {
  const scenario = (rate: number): Scenario => ({ name: 't', seed: 1, phases: [{ type: 'constant', rate, duration_s: 1 }] });
  const config = { name: 'm', max_batch_size: 8, dynamic_batching: { max_queue_delay_microseconds: 0 }, instance_group: [{ count: 1, kind: 'KIND_CPU' }] };
  const run = (rate: number, spin: boolean) => simulate({
    scenario: scenario(rate), configs: config, seed: 1, record: false,
    cost: { table: { '1': 100 }, per_item_us: 10 },
    hostModel: hostModel({ timers: ON_TIME, wake: { m: spin ? { spin_wake_us: fixed(300) } : {} } }),
  }).summary;
  // 1250/s: a send every 800 µs, each wait turn-checked; every batch (100 + 300 µs) starts on an
  // instance idle 400 µs, so every one pays the wait
  assert.equal(run(1250, false).compute_us.mean, 100);
  const spun = run(1250, true).compute_us.mean;
  assert.ok(spun > 399 && spun <= 400, `all but the last (no send pending after it): ${spun}`);
  // 3000/s: the instance is idle under SPIN_WAKE_MIN_IDLE_US after a batch that waited, so only every other batch waits
  assert.ok(run(3000, true).compute_us.mean < 300);
  // 500/s: a send every 2 ms, each wait sleeps: nobody spins
  assert.equal(run(500, true).compute_us.mean, run(500, false).compute_us.mean);
  const r = run(1250, true);
  assert.equal(r.requests.completed, r.requests.sent, 'every request answered once');
});

test('answer wake: the instance is done answer_wake_us before the table time; a turning main thread sees it then, a sleeping one after its wake-up', () => {
  const clock = new VirtualClock();
  const rc = new RealClockModel(clock, ON_TIME, new Rng(2));
  const ex = hostExecutor(clock, { table: { '1': 300 } }, { answer_wake_us: 60 }, { spinning: () => rc.spinning() }, { prefetch: 1 });
  const info = { name: 'a', group: 'g', kind: 'KIND_CPU', device: 'cpu', index: 0 };
  const answers: number[] = [];
  const send = () => ex.executeWithCallback(info, [{ id: 'r', batchSize: 1, shapeKey: '', payload: null }], () => answers.push(clock.now()));
  clock.advanceTo(10_000);
  send();
  send(); // held behind it: the instance takes it as soon as its own work is done, not after the wake-up
  clock.advanceTo(20_000);
  assert.deepEqual(answers, [10_300, 10_540], 'asleep: each answer at the table time after its start, the second starting at 10,240');
  answers.length = 0;
  clock.advanceTo(30_000);
  rc.setTimer(30_500, () => undefined); // a sub-millisecond wait pending: the main thread turns its loop
  send();
  clock.advanceTo(30_400);
  assert.deepEqual(answers, [30_240], 'turning: the answer the moment the instance is done');
  // not modelled where the simulation has no main thread (no RealClock model)
  const plain = hostExecutor(clock, { table: { '1': 300 } }, { answer_wake_us: 60 }, {});
  let at = -1;
  const t0 = clock.now();
  plain.executeWithCallback(info, [{ id: 'r', batchSize: 1, shapeKey: '', payload: null }], () => (at = clock.now() - t0));
  clock.advanceTo(t0 + 1000);
  assert.equal(at, 300);
});
