import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ModelAggregator } from './aggregator';
import { EventFold } from './event-fold';
import type { SchedulerEvent } from '../events';

const base = { model: 'm', version: '1' };
const cache = (t: number, id: string, outcome: 'hit' | 'miss', totalUs = 0): SchedulerEvent =>
  ({ ...base, type: 'request.cache', t, request_id: id, outcome, cache_us: 3, total_us: totalUs, queue_us: 1, batch_size: 1 });

test('the dashboard aggregate counts a cache hit as an answered request without compute, and the hits and misses', () => {
  const a = new ModelAggregator(1_000_000, 'm', '1');
  assert.equal(a.snapshot(0).cache, undefined, 'no cache figures for a model that never used it');
  a.add({ ...base, type: 'request.queued', t: 0, request_id: 'r1', priority: 1, batch_size: 1, queue_depth: 1 });
  a.add({ ...base, type: 'request.completed', t: 1000, request_id: 'r1', batch_id: 'b1', priority: 1, batch_size: 1, queue_us: 200, compute_us: 800, total_us: 1000, ok: true });
  a.add(cache(1000, 'r1', 'miss'));
  a.add(cache(2000, 'h1', 'hit', 10));
  const s = a.snapshot(500_000);
  assert.deepEqual(s.cache, { hits: 1, misses: 1 });
  assert.equal(s.totals.completed, 2);
  assert.equal(s.compute_us_mean, 400, 'the hit halves the mean compute per request');
  assert.equal(s.in_flight, 0);
});

test("a load run's fold (EventFold) counts a hit as an answered arrival with its latency and no compute", () => {
  const fold = new EventFold({ models: new Set(['m']) });
  fold.add(cache(2000, 'h1', 'hit', 10));
  fold.add(cache(2000, 'r1', 'miss'));
  assert.deepEqual([fold.arrivals, fold.completed, fold.timed, fold.computeSumUs, fold.batches], [1, 1, 1, 0, 0]);
});
