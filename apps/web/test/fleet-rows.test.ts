import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ModelAggregate } from '@inferscope/core';
import { fleetTotals, REPLICA_HISTORY_S, replicaRow, withPoint, type ReplicaState } from '../src/fleet/fleet-rows.ts';

const agg = (model: string, throughput: number, avgBatch: number, queue: Record<string, number>, p99: number): ModelAggregate => ({
  model, version: '1', window_s: 1, throughput_per_s: throughput, requests_per_s: throughput, latency_us: { p50: 1, p90: 1, p99, mean: 1 },
  queue_us_mean: 0, compute_us_mean: 0, avg_batch_size: avgBatch, batch_size_histogram: {}, queue_depth: queue, in_flight: 0,
  totals: { completed: 0, rejected: 0, failed: 0, batches: 0 }, memory_bytes: 0,
});

const replica = (name: string, status: ReplicaState['status'], models: ModelAggregate[], memoryBytes = 100): ReplicaState => ({
  name, path: `/replica/${name}`, status, models, memoryBytes, canControl: true, history: [],
});

test('a replica row sums its models and weights the batch size by batches, not by model', () => {
  // mlp: 800 inferences in 100 batches of 8; cnn: 100 inferences in 100 batches of 1 -> 900 / 200 = 4.5
  const row = replicaRow(replica('r0', 'connected', [agg('mlp', 800, 8, { 1: 3 }, 900), agg('cnn', 100, 1, { 1: 2, 2: 1 }, 4000)]));
  assert.equal(row.inferencesPerS, 900);
  assert.equal(row.queueDepth, 6);
  assert.equal(row.avgBatch, 4.5);
  assert.equal(row.p99Us, 4000);
});

test('a replica that is down contributes nothing, and the fleet totals say how many are up', () => {
  const rows = [
    replicaRow(replica('r0', 'connected', [agg('mlp', 800, 8, {}, 900)], 200)),
    replicaRow(replica('r1', 'disconnected', [agg('mlp', 999, 9, { 1: 9 }, 9e6)], 300)),
    replicaRow(replica('r2', 'connected', [agg('mlp', 200, 2, { 1: 1 }, 2000)], 100)),
  ];
  assert.equal(rows[1].inferencesPerS, 0);
  const t = fleetTotals(rows);
  assert.equal(t.up, 2);
  assert.equal(t.replicas, 3);
  assert.equal(t.inferencesPerS, 1000);
  assert.equal(t.avgBatch, 1000 / 200); // 100 + 100 batches
  assert.equal(t.p99Us, 2000);
  assert.equal(t.memoryBytes, 300);
});

test('each stats message adds one point of the replica\'s row to its history, bounded, never out of order', () => {
  let r = replica('r0', 'connected', []);
  r = { ...r, history: withPoint(r, 1000, [agg('mlp', 800, 8, {}, 900), agg('cnn', 100, 1, {}, 4000)]) };
  assert.deepEqual(r.history, [{ wallMs: 1000, inferencesPerS: 900, p99Us: 4000 }]);
  // a repeated or older second (a resync's snapshot) replaces, it does not duplicate
  r = { ...r, history: withPoint(r, 1000, [agg('mlp', 10, 1, {}, 5)]) };
  assert.deepEqual(r.history.map((p) => p.inferencesPerS), [10]);
  for (let i = 1; i <= REPLICA_HISTORY_S + 5; i++) r = { ...r, history: withPoint(r, 1000 + i * 1000, [agg('mlp', i, 1, {}, 1)]) };
  assert.equal(r.history.length, REPLICA_HISTORY_S);
  assert.equal(r.history.at(-1)!.inferencesPerS, REPLICA_HISTORY_S + 5);
});
