import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LogHistogram, ModelAggregator, AggregatorSet, littlesLaw, Rolling } from '@inferscope/core/stats';
import { Rng, findPreset } from '@inferscope/core/load';
import { createSimulation, percentile } from '@inferscope/core/sim';

test('log histogram percentiles stay within 1% of the exact value', () => {
  const r = new Rng(11);
  const h = new LogHistogram();
  const xs: number[] = [];
  for (let i = 0; i < 50_000; i++) {
    const v = Math.round(100 + Math.exp(r.normal(8, 1)));
    xs.push(v);
    h.add(v);
  }
  xs.sort((a, b) => a - b);
  for (const p of [0.5, 0.9, 0.99]) {
    const exact = percentile(xs, p);
    assert.ok(Math.abs(h.percentile(p) - exact) / exact < 0.01, `p${p * 100}: ${h.percentile(p)} vs ${exact}`);
  }
  assert.equal(h.max, xs.at(-1));
  assert.equal(h.count, xs.length);
});

test('rolling window forgets slots older than the window', () => {
  const w = new Rolling(1000, () => ({ n: 0 }), (s) => void (s.n = 0), 10);
  for (let t = 0; t < 3000; t += 10) w.at(t)!.n++;
  assert.equal(w.live(2999).reduce((a, s) => a + s.n, 0), 100);
  assert.equal(w.at(500), undefined, 'data older than the window is refused');
});

test('ModelAggregator over a simulated run matches the run', () => {
  const sim = createSimulation({ scenario: findPreset('steady')!, configs: { name: 'm', max_batch_size: 8, dynamic_batching: { max_queue_delay_microseconds: 500 } }, cost: { fixed_us: 1000, per_item_us: 0 } });
  const agg = new ModelAggregator(1_000_000);
  sim.bus.on((e) => agg.add(e));
  sim.advanceTo(5_000_000);
  const a = agg.snapshot(sim.now());
  assert.equal(a.model, 'm');
  assert.ok(Math.abs(a.requests_per_s - 100) <= 2, `${a.requests_per_s}`);
  assert.ok(Math.abs(a.latency_us.p50 - 1500) <= 15, `${a.latency_us.p50}`);
  assert.ok(Math.abs(a.queue_us_mean - 500) < 1 && Math.abs(a.compute_us_mean - 1000) < 1);
  assert.equal(a.avg_batch_size, 1);
  assert.ok(a.in_flight <= 1);
  const l = littlesLaw(a);
  assert.ok(Math.abs(l.predicted_in_system - 0.15) < 0.01, `${l.predicted_in_system}`);
  sim.runToEnd();
  assert.equal(agg.totals.completed, 1000);
  assert.equal(agg.snapshot(sim.now() + 5_000_000).requests_per_s, 0, 'an idle window shows no traffic');
});

test('queue depth per level and in-flight follow the events; AggregatorSet splits models', () => {
  const set = new AggregatorSet(1_000_000);
  const base = { model: 'a', version: '1' };
  set.add({ type: 'request.queued', t: 1, ...base, request_id: 'x', priority: 1, batch_size: 1, queue_depth: 1 });
  set.add({ type: 'request.queued', t: 2, ...base, request_id: 'y', priority: 2, batch_size: 1, queue_depth: 1 });
  set.add({ type: 'request.queued', t: 2, model: 'b', version: '1', request_id: 'z', priority: 1, batch_size: 1, queue_depth: 1 });
  set.add({ type: 'batch.formed', t: 3, ...base, batch_id: 'b1', request_ids: ['x'], size: 1, trigger: 'immediate', oldest_wait_us: 2 });
  set.add({ type: 'request.rejected', t: 4, ...base, request_id: 'y', reason: 'timeout', message: 'Request timeout expired', queued_us: 2 });
  set.add({ type: 'memory', t: 5, device: 'cpu', used_bytes: 10, budget_bytes: 0, entries: [{ model: 'a', version: '1', instance: 'a_0', bytes: 10, source: 'modelled' }] });
  const a = set.get('a', '1')!.snapshot(10);
  assert.deepEqual(a.queue_depth, { '1': 0, '2': 0 });
  assert.equal(a.in_flight, 1, 'x is running');
  assert.equal(a.totals.rejected, 1);
  assert.equal(a.memory_bytes, 10);
  assert.deepEqual(set.snapshot(10).map((m) => m.model), ['a', 'b']);
});

test('failures are counted by Triton reason, with the same mapping as nv_inference_request_failure', () => {
  const a = new ModelAggregator(1_000_000, 'm', '1');
  const base = { model: 'm', version: '1' } as const;
  const reasons = ['queue_full', 'timeout', 'cancelled', 'failed', 'invalid', 'unavailable'] as const;
  // refused after they were queued: failures, by Triton's reason
  reasons.forEach((reason, i) => a.add({ type: 'request.rejected', ...base, t: i, request_id: `r${i}`, reason, message: reason, queued_us: 1 }));
  // refused before queueing (queue full, invalid, unavailable at the door): no failure, as in Triton
  for (const reason of ['queue_full', 'invalid', 'unavailable'] as const) a.add({ type: 'request.rejected', ...base, t: 8, request_id: `d-${reason}`, reason, message: reason });
  a.add({ type: 'request.queued', ...base, t: 10, request_id: 'x', priority: 1, batch_size: 1, queue_depth: 1 });
  a.add({ type: 'request.completed', ...base, t: 20, request_id: 'x', batch_id: 'b', priority: 1, batch_size: 1, ok: false, queue_us: 1, compute_us: 1, total_us: 2 });
  const s = a.snapshot(30);
  assert.deepEqual(s.failures, { REJECTED: 2, CANCELED: 1, BACKEND: 2, OTHER: 2 });
  assert.equal(s.totals.failed, 7, 'failed is the sum of the failures');
  assert.equal(s.totals.rejected, 9, 'rejected counts every refusal, before queueing or after');
});
