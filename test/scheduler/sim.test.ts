import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createSimulation, simulate, baseLatencyUs, validateCost } from '@inferscope/core/sim';
import { findPreset, type Scenario } from '@inferscope/core/load';
import type { SchedulerConfigInput } from '@inferscope/core/scheduler';

const config: SchedulerConfigInput = { name: 'mlp', max_batch_size: 16, dynamic_batching: { max_queue_delay_microseconds: 1000, priority_levels: 2, default_priority_level: 2 } };
const small = (name: string, rate?: number): Scenario => ({ ...findPreset(name)!, phases: findPreset(name)!.phases.map((p) => ({ ...p, duration_s: Math.min(p.duration_s, 2) })) });

test('same seed -> byte-identical events and summary; another seed differs', () => {
  const a = simulate({ scenario: small('poisson'), configs: config, seed: 7, cost: { fixed_us: 1500, per_item_us: 100, jitter: 0.2 } });
  const b = simulate({ scenario: small('poisson'), configs: config, seed: 7, cost: { fixed_us: 1500, per_item_us: 100, jitter: 0.2 } });
  const c = simulate({ scenario: small('poisson'), configs: config, seed: 8, cost: { fixed_us: 1500, per_item_us: 100, jitter: 0.2 } });
  assert.equal(JSON.stringify(a), JSON.stringify(b));
  assert.notEqual(JSON.stringify(a.summary), JSON.stringify(c.summary));
  assert.ok(a.events.length > 500);
});

test('summary figures agree with the event log', () => {
  const { events, summary } = simulate({ scenario: small('big-requests'), configs: config });
  const done = events.filter((e) => e.type === 'request.completed');
  assert.equal(summary.requests.completed, done.length);
  assert.equal(summary.requests.sent, summary.requests.completed + summary.requests.rejected + summary.requests.failed);
  const formed = events.filter((e) => e.type === 'batch.formed');
  assert.equal(summary.batches, formed.length);
  assert.equal(Object.values(summary.batch_size_histogram).reduce((a, b) => a + b, 0), formed.length);
  const samples = formed.reduce((n, e) => n + (e.type === 'batch.formed' ? e.size : 0), 0);
  assert.equal(summary.avg_batch_size, Math.round((samples / formed.length) * 1000) / 1000);
  assert.ok(summary.latency_us.p50 <= summary.latency_us.p90 && summary.latency_us.p90 <= summary.latency_us.p99);
  assert.ok(Math.max(...Object.keys(summary.batch_size_histogram).map(Number)) <= 16);
});

test('batching pays off under load: larger batches and more throughput than no batching', () => {
  const scenario = small('overload');
  const cost = { fixed_us: 2000, per_item_us: 100 };
  const batched = simulate({ scenario, configs: config, cost, overrides: { rate: 3000 }, record: false }).summary;
  const single = simulate({ scenario, configs: { name: 'mlp', max_batch_size: 16 }, cost, overrides: { rate: 3000 }, record: false }).summary;
  assert.ok(batched.avg_batch_size > 4, `avg batch ${batched.avg_batch_size}`);
  assert.equal(single.avg_batch_size, 1);
  assert.ok(batched.throughput_per_s > 3 * single.throughput_per_s, `${batched.throughput_per_s} vs ${single.throughput_per_s}`);
});

test('overload with a queue limit: refusals are counted, everything accepted is answered', () => {
  const limited = { ...config, dynamic_batching: { ...config.dynamic_batching, default_queue_policy: { max_queue_size: 50 } } };
  const s = simulate({ scenario: small('overload'), configs: limited, cost: { fixed_us: 5000, per_item_us: 500 }, record: false }).summary;
  assert.ok(s.requests.rejected > 0);
  assert.equal(s.rejected_by_reason.queue_full, s.requests.rejected);
  assert.equal(s.requests.completed + s.requests.rejected, s.requests.sent);
});

test('closed loop: never more requests in the system than clients', () => {
  const sim = createSimulation({ scenario: small('closed-loop'), configs: config, overrides: { concurrency: 5 } });
  let inSystem = 0;
  let peak = 0;
  sim.bus.on((e) => {
    if (e.type === 'request.queued') peak = Math.max(peak, ++inSystem);
    if (e.type === 'request.completed' || e.type === 'request.rejected') inSystem--;
  });
  sim.runToEnd();
  assert.equal(peak, 5);
  assert.ok(sim.summary().requests.completed > 100);
});

test('step-wise API: single steps, advanceTo, events so far, live config change', () => {
  const sim = createSimulation({ scenario: small('steady'), configs: config });
  assert.deepEqual(sim.events.map((e) => e.type), ['instance.state', 'instance.state'], 'loading, idle: before any step');
  const first = sim.stepEvent();
  assert.deepEqual(first.map((e) => e.type), ['request.queued']);
  let steps = 0;
  while (!sim.events.some((e) => e.type === 'request.completed')) {
    assert.ok(sim.stepEvent().length > 0);
    steps++;
  }
  assert.ok(steps >= 2, 'the batch forms at one step (delay timer) and completes at a later one');
  sim.advanceTo(500_000);
  assert.equal(sim.now(), 500_000);
  assert.ok(sim.events.every((e) => e.t <= 500_000));
  sim.schedulers.get('mlp')!.updateDynamicBatching({ max_queue_delay_microseconds: 0 }, 'teacher');
  sim.runToEnd();
  assert.ok(sim.done());
  const after = sim.events.filter((e) => e.type === 'batch.formed' && e.t > 500_000);
  assert.ok(after.every((e) => e.type === 'batch.formed' && e.oldest_wait_us === 0));
});

test('model mix: requests go to their model; unknown models are refused, not lost', () => {
  const scenario: Scenario = { name: 'mix', models: [{ value: 'a', weight: 1 }, { value: 'b', weight: 1 }, { value: 'ghost', weight: 0.2 }], phases: [{ type: 'poisson', duration_s: 1, rate: 200 }] };
  const { events, summary } = simulate({ scenario, configs: [{ name: 'a', max_batch_size: 4, dynamic_batching: {} }, { name: 'b', max_batch_size: 0 }], cost: { a: { fixed_us: 100 }, b: { fixed_us: 300 } } });
  const models = new Set(events.filter((e) => e.type === 'request.completed').map((e) => (e as { model: string }).model));
  assert.deepEqual([...models].sort(), ['a', 'b']);
  assert.ok(summary.rejected_by_reason.invalid > 0);
  assert.equal(summary.requests.sent, summary.requests.completed + summary.requests.rejected);
});

test('cost model: linear, table interpolation, validation', () => {
  assert.equal(baseLatencyUs({ fixed_us: 100, per_item_us: 10 }, 8), 180);
  const table = { table: { '1': 100, '4': 160, '8': 200 } };
  assert.equal(baseLatencyUs(table, 2), 120);
  assert.equal(baseLatencyUs(table, 6), 180);
  assert.equal(baseLatencyUs(table, 16), 280, 'beyond the table: the last slope');
  assert.throws(() => validateCost({ fixed_us: -1 }), /fixed_us: must be a number >= 0/);
  assert.throws(() => validateCost({ table: { zero: 5 } }), /keys must be batch sizes/);
  assert.throws(() => validateCost({}), /fixed_us\/per_item_us or a table/);
  assert.throws(() => validateCost({ fixed_us: 1, fixd_us: 2 }), /fixd_us: unknown field/);
  assert.throws(() => validateCost({ fixed_us: 1, jitter: 1 }), /jitter: must be a number < 1/);
  assert.throws(() => validateCost({ fixed_us: 1, spread: { '0': 3, '1': 2 } }), /spread\.1: quantiles must not decrease/);
  assert.throws(() => validateCost({ table: { '1': 'slow' } }), /table\.1: must be a number/);
});
