import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ModelAggregate, StatsMessage } from '@inferscope/core';
import { combine, groupByConfig, littlesLaw, mergeHistograms, niceMax, timeDomain } from '../src/charts/scales';
import { formatBytes, formatRate, formatUs } from '../src/charts/format';

const agg = (over: Partial<ModelAggregate>): ModelAggregate => ({
  model: 'a', version: '1', window_s: 1, throughput_per_s: 0, requests_per_s: 0, latency_us: { p50: 0, p90: 0, p99: 0, mean: 0 },
  queue_us_mean: 0, compute_us_mean: 0, avg_batch_size: 0, batch_size_histogram: {}, queue_depth: {}, in_flight: 0,
  totals: { completed: 0, rejected: 0, failed: 0, batches: 0 }, memory_bytes: 0, ...over,
});

test('niceMax rounds above the data and never collapses to zero', () => {
  assert.equal(niceMax([0, 0]), 1);
  assert.equal(niceMax([93]), 110);
  assert.ok(niceMax([1234]) >= 1234 * 1.1);
  assert.equal(niceMax([NaN, Infinity, 5]), 5.5); // non-finite values are ignored
});

test('timeDomain ends at now', () => {
  assert.deepEqual(timeDomain(10_000_000, 3_000_000), [7_000_000, 10_000_000]);
});

test('histograms from several aggregates add up per batch size, sorted', () => {
  const bins = mergeHistograms([agg({ batch_size_histogram: { 8: 2, 1: 1 } }), agg({ batch_size_histogram: { 8: 3, 4: 0 } })]);
  assert.deepEqual(bins, [{ size: 1, count: 1 }, { size: 8, count: 5 }]);
});

test('combining models adds rates and weights means by request rate; percentiles take the worst', () => {
  const s: StatsMessage = { t: 1, wall_ms: 1, models: [
    agg({ model: 'a', throughput_per_s: 100, requests_per_s: 100, queue_us_mean: 1000, compute_us_mean: 100, latency_us: { p50: 1, p90: 2, p99: 50, mean: 1100 }, in_flight: 2 }),
    agg({ model: 'b', throughput_per_s: 300, requests_per_s: 300, queue_us_mean: 0, compute_us_mean: 500, latency_us: { p50: 9, p90: 9, p99: 9, mean: 500 }, in_flight: 1 }),
  ] };
  const all = combine(s, 'all')!;
  assert.equal(all.throughput, 400);
  assert.equal(all.queueUs, 250);
  assert.equal(all.computeUs, 400);
  assert.equal(all.p99, 50);
  assert.equal(all.inFlight, 3);
  assert.equal(combine(s, 'b:1')!.throughput, 300);
  assert.equal(combine(s, 'zzz:1'), undefined);
});

test("Little's law: 500 req/s at 4 ms mean predicts 2 in flight", () => {
  const l = littlesLaw({ requestsPerS: 500, meanUs: 4000, inFlight: 2 });
  assert.equal(l.predicted, 2);
  assert.equal(l.ratio, 1);
  assert.equal(littlesLaw({ requestsPerS: 0, meanUs: 0, inFlight: 0 }).ratio, 0);
});

test('throughput-vs-p99 points group per configuration with mean markers', () => {
  const g = groupByConfig([
    { config: 'A', throughput: 100, p99Us: 10 }, { config: 'B', throughput: 50, p99Us: 5 }, { config: 'A', throughput: 200, p99Us: 30 },
  ]);
  assert.deepEqual(g.map((x) => [x.config, x.meanThroughput, x.meanP99Us]), [['A', 150, 20], ['B', 50, 5]]);
});

test('formatting picks human units', () => {
  assert.equal(formatUs(850), '850 µs');
  assert.equal(formatUs(2500), '2.5 ms');
  assert.equal(formatUs(-300_000), '-300 ms');
  assert.equal(formatUs(1_500_000), '1.5 s');
  assert.equal(formatBytes(512), '512 B');
  assert.equal(formatBytes(3 * 1024 * 1024), '3 MiB');
  assert.equal(formatRate(12_345), '12.3k');
  assert.equal(formatRate(3.14159), '3.1');
});
