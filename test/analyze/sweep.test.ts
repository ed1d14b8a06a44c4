/** The sweep's pure parts: the grid, the pruning rule, the Pareto set, the ranking and the reports. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { configKey, gridConfigs, parsePreferred, type SweepConfig } from '../../apps/server/src/analyze/search-space.ts';
import { paretoSet, rankResults, type SweepResult } from '../../apps/server/src/analyze/ranking.ts';
import { runSweep } from '../../apps/server/src/analyze/sweep.ts';
import { toCsv, toHtml } from '../../apps/server/src/analyze/report.ts';

const cfg = (instances: number, delay: number, max = 32, pref: number[] = []): SweepConfig =>
  ({ instances, max_batch_size: max, max_queue_delay_microseconds: delay, preferred_batch_size: pref });
const res = (c: SweepConfig, throughput: number, p99: number, extra: Partial<SweepResult> = {}): SweepResult => ({
  config: c, throughput_per_s: throughput, latency_us: { p50: p99 / 2, p95: p99 * 0.9, p99 }, avg_batch: 4, queue_us: 100,
  compute_us: 200, memory_bytes: 1 << 20, errors: 0, stable: true, ...extra,
});

test('the grid: instances outermost, delay innermost and ascending, preferred sizes above max dropped', () => {
  const g = gridConfigs({ instances: [1, 2], maxBatch: [8, 16], delayUs: [1000, 0], preferred: parsePreferred('none,max,12') });
  // 2 instances x (max 8: none, max ; max 16: none, max, [12]) x 2 delays
  assert.equal(g.length, 2 * (2 + 3) * 2);
  assert.deepEqual(g.slice(0, 2).map((c) => c.max_queue_delay_microseconds), [0, 1000]);
  assert.ok(g.slice(0, 10).every((c) => c.instances === 1));
  assert.deepEqual(g.find((c) => c.max_batch_size === 16 && c.preferred_batch_size.length === 1 && c.preferred_batch_size[0] === 12)?.max_queue_delay_microseconds, 0);
  assert.ok(!g.some((c) => c.max_batch_size === 8 && c.preferred_batch_size.includes(12)));
  assert.equal(new Set(g.map(configKey)).size, g.length);
});

test('Pareto set and ranking: budgets exclude with a reason, best is the highest in-budget throughput', () => {
  const rs = [res(cfg(1, 0), 100, 1000), res(cfg(1, 500), 200, 3000), res(cfg(2, 0), 150, 900), res(cfg(2, 500), 190, 5000), res(cfg(2, 900), 300, 9000, { errors: 2 })];
  const front = paretoSet(rs);
  assert.deepEqual([...front].sort(), [configKey(cfg(1, 500)), configKey(cfg(2, 0)), configKey(cfg(2, 900))].sort());
  const ranked = rankResults(rs, { latencyBudgetUs: 4000 });
  assert.deepEqual(ranked.filter((r) => r.rank !== null).map((r) => configKey(r.config)), [cfg(1, 500), cfg(2, 0), cfg(1, 0)].map(configKey));
  assert.equal(ranked.find((r) => r.config.max_queue_delay_microseconds === 900)?.excluded, '2 errors');
  assert.equal(ranked.find((r) => r.config.instances === 2 && r.config.max_queue_delay_microseconds === 500)?.excluded, 'p99 over the latency budget');
  assert.equal(rankResults(rs, { memoryBudgetBytes: 1000 }).every((r) => r.rank === null), true);
});

test('pruning: a line over the latency budget stops; a delay that gains nothing stops its line; grid runs all', async () => {
  const configs = [cfg(1, 0), cfg(1, 1000), cfg(1, 2000), cfg(2, 0), cfg(2, 1000), cfg(2, 2000), cfg(2, 4000)];
  const figures: Record<string, [number, number]> = {
    [configKey(cfg(1, 0))]: [100, 9000], // over a 5 ms budget: the rest of instances=1 is skipped
    [configKey(cfg(2, 0))]: [100, 1000],
    [configKey(cfg(2, 1000))]: [150, 1500],
    [configKey(cfg(2, 2000))]: [151, 2500], // +0.7%: longer delays on this line are dominated
  };
  const applied: string[] = [];
  const deps = {
    apply: async (c: SweepConfig) => { applied.push(configKey(c)); },
    measure: async (c: SweepConfig) => {
      const [t, p] = figures[configKey(c)] ?? [1, 1];
      const { config: _, ...rest } = res(c, t, p);
      return rest;
    },
  };
  const pruned = await runSweep(configs, deps, { search: 'prune', latencyBudgetUs: 5000 });
  assert.deepEqual(pruned.results.map((r) => configKey(r.config)), [cfg(1, 0), cfg(2, 0), cfg(2, 1000), cfg(2, 2000)].map(configKey));
  assert.deepEqual(pruned.skipped.map((s) => configKey(s.config)), [cfg(1, 1000), cfg(1, 2000), cfg(2, 4000)].map(configKey));
  assert.match(pruned.skipped[0].reason, /latency budget/);
  assert.match(pruned.skipped[2].reason, /gained under 2% throughput/);
  assert.deepEqual(applied, pruned.results.map((r) => configKey(r.config)), 'skipped configs are never applied');
  const grid = await runSweep(configs, deps, { search: 'grid', latencyBudgetUs: 5000 });
  assert.equal(grid.results.length, configs.length);
});

test('CSV has a row per config; the HTML report is self-contained with one dot per config', () => {
  const ranked = rankResults([res(cfg(1, 0), 100, 1000), res(cfg(2, 0, 16, [8, 16]), 150, 900)], {});
  const csv = toCsv(ranked).trim().split('\n');
  assert.equal(csv.length, 3);
  assert.match(csv[0], /^rank,pareto,instances,max_batch_size,max_queue_delay_us/);
  assert.match(csv[1], /^1,yes,2,16,0,8 16,150\.0/);
  const html = toHtml(ranked, { model: 'm<x>', traffic: 'concurrency 4', when: 'now' });
  assert.equal((html.match(/<circle[^>]*data-config/g) ?? []).length, 2);
  assert.ok(!/<script|src=|href=/.test(html), 'no script or external asset');
  assert.ok(html.includes('m&#60;x&#62;'), 'names are escaped');
});

test('confirmation re-measures only the leaders and keeps their second figures (no winner\'s curse)', async () => {
  const { confirmLeaders } = await import('../../apps/server/src/analyze/sweep.ts');
  const run = { results: [res(cfg(1, 0), 900, 1000), res(cfg(2, 0), 500, 1000), res(cfg(3, 0), 100, 1000)], skipped: [] };
  const measured: string[] = [];
  const deps = {
    apply: async () => {},
    measure: async (c: SweepConfig) => {
      measured.push(configKey(c));
      const { config: _, ...rest } = res(c, c.instances === 1 ? 400 : 450, 1000);
      return rest;
    },
  };
  const out = await confirmLeaders(run, deps, 2, (rs) => rankResults(rs, {}));
  assert.deepEqual(measured, [configKey(cfg(1, 0)), configKey(cfg(2, 0))]);
  assert.deepEqual(out.map((r) => r.throughput_per_s), [400, 450, 100]);
  assert.equal(rankResults(out, {})[0].config.instances, 2, 'the lucky first place is re-ranked');
});
