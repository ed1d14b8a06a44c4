/** The sweep's pure parts: the grid, the pruning rule, the Pareto set, the ranking and the reports. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { configKey, gridConfigs, parsePreferred, type SweepConfig } from '../../apps/server/src/clients/analyze/search-space.ts';
import { paretoSet, rankResults, recommend } from '@inferscope/core/load';
import type { SweepResult } from '@inferscope/core';
import { runSweep, searchFor } from '../../apps/server/src/clients/analyze/sweep.ts';
import { recommendationLine, toCsv, toHtml } from '../../apps/server/src/clients/analyze/report.ts';

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

test('pruning never skips for the latency budget; a line stops only after two dominated delays in a row; grid runs all', async () => {
  const configs = [cfg(1, 0), cfg(1, 1000), cfg(1, 2000), cfg(2, 0), cfg(2, 1000), cfg(2, 2000), cfg(2, 4000), cfg(2, 8000)];
  const figures: Record<string, [number, number]> = {
    // an overloaded line: delay 0 is over a 5 ms budget, and a longer delay LOWERS p99 (bigger batches)
    [configKey(cfg(1, 0))]: [100, 9000],
    [configKey(cfg(1, 1000))]: [160, 4000],
    [configKey(cfg(1, 2000))]: [170, 4500],
    [configKey(cfg(2, 0))]: [100, 1000],
    [configKey(cfg(2, 1000))]: [150, 1500],
    [configKey(cfg(2, 2000))]: [151, 2500], // +0.7% at a higher p99: a suspect...
    [configKey(cfg(2, 4000))]: [151, 4500], // ...confirmed by its measured neighbour: 8000 is skipped
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
  const pruned = await runSweep(configs, deps, { search: 'prune' });
  assert.deepEqual(pruned.results.map((r) => configKey(r.config)), configs.slice(0, 7).map(configKey));
  assert.deepEqual(pruned.skipped.map((s) => configKey(s.config)), [configKey(cfg(2, 8000))]);
  assert.match(pruned.skipped[0].reason, /delays 2000 and 4000 µs each gained under 2% throughput/);
  assert.deepEqual(applied, pruned.results.map((r) => configKey(r.config)), 'skipped configs are never applied');
  // the overloaded line's longer delay is measured and is the answer under the budget
  const ranked = rankResults(pruned.results, { latencyBudgetUs: 5000 });
  assert.equal(configKey(ranked.find((r) => r.rank === 1)!.config), configKey(cfg(1, 2000)));
  const grid = await runSweep(configs, deps, { search: 'grid' });
  assert.equal(grid.results.length, configs.length);
  assert.equal(searchFor('auto', 30), 'grid');
  assert.equal(searchFor('auto', 31), 'prune');
  assert.equal(searchFor('prune', 4), 'prune');
});

test('when nothing meets the budgets the closest config is recommended with by how much it misses', () => {
  const rs = [res(cfg(1, 0), 100, 17_700), res(cfg(1, 2000), 120, 13_700), res(cfg(2, 0), 300, 9_000, { errors: 3 })];
  const ranked = rankResults(rs, { latencyBudgetUs: 10_000 });
  assert.ok(ranked.every((r) => r.rank === null));
  const rec = recommend(ranked, { latencyBudgetUs: 10_000 })!;
  assert.equal(rec.meets, false);
  assert.equal(configKey(rec.result.config), configKey(cfg(1, 2000)), 'the error-free config nearest the budget');
  assert.match(rec.misses!, /13\.70 ms misses the 10\.00 ms budget by 3\.70 ms \(37%\)/);
  assert.match(recommendationLine(rec), /^No config met the budgets\. Closest: instances 1, max_batch 32, delay 2000 µs/);
  const ok = recommend(rankResults(rs, { latencyBudgetUs: 15_000 }), { latencyBudgetUs: 15_000 })!;
  assert.equal(ok.meets, true);
  assert.match(recommendationLine(ok), /^Recommended/);
});

test('repeats: medians and ranges; a rank whose range overlaps the one above is marked within noise', async () => {
  let n = 0;
  const noisy = [100, 140, 120, 118, 119, 121];
  const deps = {
    apply: async () => {},
    measure: async (c: SweepConfig) => {
      const { config: _, ...rest } = res(c, noisy[n++], 1000);
      return rest;
    },
  };
  const run = await runSweep([cfg(1, 0), cfg(2, 0)], deps, { search: 'grid', repeat: 3 });
  assert.equal(run.results[0].throughput_per_s, 120, 'median of 100, 140, 120');
  assert.deepEqual(run.results[0].spread, { repeats: 3, throughput_per_s: [100, 140], p99_us: [1000, 1000] });
  const ranked = rankResults(run.results, {});
  assert.equal(ranked[0].config.instances, 1);
  assert.equal(ranked[1].within_noise_of, 1, '118-121 overlaps 100-140');
});

test('CSV and HTML have a row for every config of the space, skipped ones with the reason, and say what was measured where', () => {
  const ranked = rankResults([res(cfg(1, 0), 100, 1000), res(cfg(2, 0, 16, [8, 16]), 150, 900)], {});
  const skipped = [{ config: cfg(2, 4000), reason: 'delays 1000 and 2000 µs each gained nothing' }];
  const meta = { model: 'm<x>', version: '2', host: '127.0.0.1:8000, 2 CPUs', traffic: 'concurrency 4', when: '2026-12-02T01:00:00Z' };
  const csv = toCsv(ranked, skipped, meta).trim().split('\n');
  assert.equal(csv.length, 4);
  assert.match(csv[0], /^rank,pareto,instances,max_batch_size,max_queue_delay_us.*,model,version,host,load,date$/);
  assert.match(csv[1], /^1,yes,2,16,0,8 16,150\.0/);
  assert.match(csv[1], /,m<x>,2,"127\.0\.0\.1:8000, 2 CPUs",concurrency 4,2026-12-02T01:00:00Z$/);
  assert.match(csv[3], /^,,2,32,4000,,.*skipped: delays 1000 and 2000/);
  const cells = (l: string) => l.replace(/"[^"]*"/g, 'x').split(',').length;
  assert.equal(cells(csv[3]), cells(csv[0]), 'a skipped row has every column');
  const html = toHtml(ranked, meta, { skipped, recommendation: recommend(ranked, {}) });
  assert.equal((html.match(/<circle[^>]*data-config/g) ?? []).length, 2);
  assert.equal((html.match(/<tr class="skipped">/g) ?? []).length, 1);
  assert.match(html, /version 2/);
  assert.match(html, /host 127\.0\.0\.1:8000, 2 CPUs/);
  assert.match(html, /data-recommendation>Recommended/);
  assert.ok(!/<script|src=|href=/.test(html), 'no script or external asset');
  assert.ok(html.includes('m&#60;x&#62;'), 'names are escaped');
});

test('confirmation re-measures only the leaders and keeps their second figures (no winner\'s curse)', async () => {
  const { confirmLeaders } = await import('../../apps/server/src/clients/analyze/sweep.ts');
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
