/**
 * The simulator's executor as the product uses it: prefetch (batches held behind a running one), the held
 * table, the cost after idle. Virtual clock only. (The host model's mechanisms: bench/sim-host.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { idlePenaltyUs } from './cost-model';
import { simulate } from './simulation';
import type { Scenario } from '../load/scenario';

const poisson = (rate: number, seconds: number): Scenario => ({ name: 't', seed: 1, phases: [{ type: 'poisson', rate, duration_s: seconds }] });
const mlp = (delay: number, preferred: number[] = []) => ({
  name: 'm', max_batch_size: 32, dynamic_batching: { max_queue_delay_microseconds: delay, preferred_batch_size: preferred }, instance_group: [{ count: 1, kind: 'KIND_CPU' }],
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
  // (whole µs: a batch smaller than the table's row is scaled and rounded)
  const took = (us: number) => (e: { size: number; compute_us: number }) => e.compute_us === Math.round((e.size * us) / 8);
  assert.ok(plain.held.length > 100 && plain.held.every(took(400)), 'without a held table: the table');
  assert.ok(quick.held.length > 100 && quick.held.every(took(300)), 'held: the held table');
  assert.ok(quick.sent.length > 0 && quick.sent.every(took(400)), 'sent to an idle instance: the table');
  const ratio = run({ '8': 300 }).summary.throughput_per_s / run().summary.throughput_per_s;
  assert.ok(ratio > 1.25 && ratio < 1.4, `throughput under overload follows the instance's cycle: ${ratio}`);
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
