import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ModelAggregate, Snapshot, StatsMessage } from '@inferscope/core';
import { failureRates, logDomain, niceCeil, pendingOf, quantile, robustMax, seriesByVersion } from '../src/charts/series';
import { LiveModel } from '../src/store/live-model';

const agg = (over: Partial<ModelAggregate>): ModelAggregate => ({
  model: 'm', version: '1', window_s: 1, throughput_per_s: 0, requests_per_s: 0, latency_us: { p50: 0, p90: 0, p99: 0, mean: 0 },
  queue_us_mean: 0, compute_us_mean: 0, avg_batch_size: 0, batch_size_histogram: {}, queue_depth: {}, in_flight: 0,
  totals: { completed: 0, rejected: 0, failed: 0, batches: 0 }, memory_bytes: 0, ...over,
});
const stats = (t: number, models: ModelAggregate[]): StatsMessage => ({ t, wall_ms: 0, models });

test('one series per model version, never merged, in order of appearance', () => {
  const s = [
    stats(1e6, [agg({ version: '1', throughput_per_s: 10 }), agg({ version: '2', throughput_per_s: 20 })]),
    stats(2e6, [agg({ version: '1', throughput_per_s: 11 }), agg({ version: '2', throughput_per_s: 21 }), agg({ model: 'cnn', throughput_per_s: 3 })]),
  ];
  const all = seriesByVersion(s, 'all', (a) => a.throughput_per_s);
  assert.deepEqual(all.map((x) => x.key), ['m:1', 'm:2', 'cnn:1']);
  assert.deepEqual(all[1].points, [{ t: 1e6, v: 20 }, { t: 2e6, v: 21 }]);
  assert.deepEqual(seriesByVersion(s, 'm:2', (a) => a.throughput_per_s).map((x) => x.key), ['m:2']);
  // NaN (no traffic: no latency) is left out instead of drawn as 0
  assert.equal(seriesByVersion(s, 'all', () => NaN)[0].points.length, 0);
});

test('robust axis: a single 200 ms spike does not flatten a 4 ms line, and is counted as clipped', () => {
  const values = [...Array.from({ length: 59 }, (_, i) => 4000 + (i % 5) * 100), 200_000];
  const r = robustMax(values, { floor: 1000 });
  assert.ok(r.max >= 4400 && r.max <= 10_000, `max ${r.max} shows the typical 4 ms`);
  assert.equal(r.clipped, 1);
  // steady data: the largest value fits, nothing clipped
  const steady = robustMax([4000, 4200, 4400], { floor: 1000 });
  assert.ok(steady.max >= 4400);
  assert.equal(steady.clipped, 0);
  assert.equal(robustMax([], { floor: 5 }).max, 5);
  assert.equal(quantile([5, 1, 3], 0.5), 3);
  assert.deepEqual([niceCeil(4.1), niceCeil(21), niceCeil(0.3), niceCeil(0)], [5, 25, 0.5, 1]);
  assert.deepEqual(logDomain([300, 200_000]), [100, 1_000_000]);
});

test('failure rates by Triton reason come from the running totals, per second, summed over versions', () => {
  const f = (REJECTED: number, BACKEND: number) => ({ REJECTED, CANCELED: 0, BACKEND, OTHER: 0 });
  const s = [
    stats(0, [agg({ version: '1', failures: f(0, 0) }), agg({ version: '2', failures: f(5, 0) })]),
    stats(2e6, [agg({ version: '1', failures: f(4, 2) }), agg({ version: '2', failures: f(9, 0) })]),
    stats(3e6, [agg({ version: '1', failures: f(1, 0) })]), // v1 restarted: counted from zero
  ];
  const r = failureRates(s, 'all');
  assert.equal(r.length, 2);
  assert.deepEqual(r[0], { t: 2e6, perS: { REJECTED: 4, CANCELED: 0, BACKEND: 1, OTHER: 0 } });
  assert.deepEqual(r[1].perS, { REJECTED: 1, CANCELED: 0, BACKEND: 0, OTHER: 0 });
  assert.equal(pendingOf(agg({ queue_depth: { '1': 3, '2': 4 } })), 7);
});

function snapshot(history?: Snapshot['history']): Snapshot {
  return {
    server: { name: 's', version: '1', extensions: [], model_control_mode: 'none', token_required: false, can_control: true, cpu_count: 2, gpu_count: 0 },
    repositories: [], models: [], memory: [], stats: null, t: 10e6, wall_ms: 0, history,
  };
}

test('a snapshot backfills stats and config markers from history, without duplicates on resync', () => {
  const live = new LiveModel();
  const change = { type: 'config.changed' as const, t: 2.5e6, model: 'm', version: '1', by: 'cli', changes: [{ path: 'dynamic_batching.max_queue_delay_microseconds', old: 0, new: 4000 }] };
  const history = { stats: [1e6, 2e6, 3e6].map((t) => stats(t, [agg({ throughput_per_s: t / 1e5 })])), config_changes: [change] };
  live.applySnapshot(snapshot(history));
  assert.deepEqual(live.stats.toArray().map((s) => s.t), [1e6, 2e6, 3e6]);
  assert.equal(live.configLog.length, 1);
  live.applyStats(stats(4e6, [agg({})]));
  live.applySnapshot(snapshot({ stats: [...history.stats, stats(4e6, [agg({})])], config_changes: [change] }));
  assert.deepEqual(live.stats.toArray().map((s) => s.t), [1e6, 2e6, 3e6, 4e6], 'a resync adds nothing twice');
  assert.equal(live.configLog.length, 1);
  // a restarted server (its clock began again) replaces the old picture instead of mixing time bases
  live.applySnapshot(snapshot({ stats: [stats(0.5e6, [agg({})])], config_changes: [] }));
  assert.deepEqual(live.stats.toArray().map((s) => s.t), [0.5e6]);
  assert.equal(live.configLog.length, 0);
});
