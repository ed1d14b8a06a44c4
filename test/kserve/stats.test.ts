// StatsCollector from a synthetic event stream, and the stats routes' JSON shape and errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Fastify from 'fastify';
import { EventBus } from '@inferscope/core';
import { StatsCollector } from '../../apps/server/src/stats/collector';
import { registerStatsRoutes } from '../../apps/server/src/http/stats-routes';

import { syntheticStream } from './synthetic-events';

test('statistics from a synthetic event stream', () => {
  const bus = new EventBus();
  const stats = new StatsCollector(bus, {
    now: () => 1_700_000_000_000,
    models: () => [{ name: 'mlp', version: '1' }, { name: 'mlp', version: '2' }, { name: 'cnn', version: '1' }],
  });
  for (const e of syntheticStream()) bus.emit(e);
  const all = stats.modelStats();
  assert.deepEqual(all.map((m) => `${m.name}/${m.version}`), ['cnn/1', 'mlp/1', 'mlp/2']);
  const [m] = stats.modelStats('mlp', '1');
  assert.equal(m.last_inference, 1_700_000_000_000);
  assert.equal(m.inference_count, 4); // 2 + 1 + 1 samples
  assert.equal(m.execution_count, 2); // the failed batch is not an execution
  assert.deepEqual(m.inference_stats.success, { count: 3, ns: (300 + 290 + 340) * 1000 });
  // the failed request and the timed-out one count; the queue-full refusal at the door does not (Triton)
  assert.deepEqual(m.inference_stats.fail, { count: 2, ns: 370 * 1000 + 500 * 1000 });
  assert.deepEqual(m.inference_stats.queue, { count: 3, ns: (100 + 90 + 290) * 1000 });
  assert.deepEqual(m.inference_stats.compute_infer, { count: 3, ns: (200 + 200 + 50) * 1000 });
  assert.deepEqual(m.inference_stats.compute_input, { count: 3, ns: 0 });
  assert.deepEqual(m.inference_stats.cache_hit, { count: 0, ns: 0 });
  assert.deepEqual(m.batch_stats, [
    { batch_size: 1, compute_input: { count: 1, ns: 0 }, compute_infer: { count: 1, ns: 50_000 }, compute_output: { count: 1, ns: 0 } },
    { batch_size: 3, compute_input: { count: 1, ns: 0 }, compute_infer: { count: 1, ns: 200_000 }, compute_output: { count: 1, ns: 0 } },
  ]);
  const idle = stats.modelStats('mlp', '2')[0];
  assert.equal(idle.inference_count, 0);
  assert.deepEqual(idle.batch_stats, []);
  assert.equal(stats.modelStats('mlp').length, 2);
  // Triton: only READY versions have statistics; any other name or version is INVALID_ARG (400)
  assert.throws(() => stats.modelStats('nope'), (e: { httpStatus: number; code: string; message: string }) => e.httpStatus === 400 && e.code === 'INVALID_ARG' && e.message === "requested model 'nope' is not available");
  assert.throws(() => stats.modelStats('mlp', '9'), (e: { message: string }) => e.message === "requested model version is not available for model 'mlp'");
  stats.close();
  assert.equal(bus.size, 0);
});

test('stats routes: Triton JSON shape and error bodies', async () => {
  const bus = new EventBus();
  const stats = new StatsCollector(bus, { models: () => [{ name: 'mlp', version: '1' }] });
  for (const e of syntheticStream()) bus.emit(e);
  const app = Fastify();
  registerStatsRoutes(app, stats);
  await app.ready();
  for (const url of ['/v2/models/stats', '/v2/models/mlp/stats', '/v2/models/mlp/versions/1/stats']) {
    const res = await app.inject({ method: 'GET', url });
    assert.equal(res.statusCode, 200);
    const body = JSON.parse(res.body);
    assert.equal(body.model_stats.length, 1);
    const s = body.model_stats[0];
    assert.deepEqual(Object.keys(s), ['name', 'version', 'last_inference', 'inference_count', 'execution_count',
      'inference_stats', 'response_stats', 'batch_stats', 'memory_usage']);
    assert.deepEqual(Object.keys(s.inference_stats), ['success', 'fail', 'queue', 'compute_input', 'compute_infer',
      'compute_output', 'cache_hit', 'cache_miss']);
    assert.equal(s.version, '1');
  }
  const bad = await app.inject({ method: 'GET', url: '/v2/models/nope/stats' });
  assert.equal(bad.statusCode, 400);
  assert.deepEqual(JSON.parse(bad.body), { error: "requested model 'nope' is not available" });
  const badV = await app.inject({ method: 'GET', url: '/v2/models/mlp/versions/3/stats' });
  assert.equal(badV.statusCode, 400);
  await app.close();
  stats.close();
});

test('durations are whole microseconds in integer nanoseconds; an unloaded version disappears and a reload starts from zero', () => {
  const bus = new EventBus();
  let ready = [{ name: 'mlp', version: '1' }];
  const stats = new StatsCollector(bus, { models: () => ready });
  const M = { model: 'mlp', version: '1' };
  // fractional microseconds, as the real clock gives them
  bus.emit({ type: 'request.completed', t: 10, ...M, request_id: 'a', batch_id: 'b', priority: 1, batch_size: 1, queue_us: 1.2345678, compute_us: 2.0000004, total_us: 3.3333333, ok: true });
  bus.emit({ type: 'batch.completed', t: 10, ...M, batch_id: 'b', instance: 'i', size: 1, compute_us: 2.0000004, ok: true });
  const [m] = stats.modelStats('mlp');
  for (const d of [m.inference_stats.success, m.inference_stats.queue, m.inference_stats.compute_infer, m.batch_stats[0].compute_infer]) {
    assert.ok(Number.isInteger(d.ns), `ns ${d.ns} is an integer`);
  }
  // each duration rounds once, to whole µs, so Prometheus' _duration_us (ns / 1000) is exact
  assert.equal(m.inference_stats.queue.ns, 1000);
  assert.equal(m.inference_stats.success.ns, 3000);
  assert.equal(m.inference_stats.compute_infer.ns, 2000);
  // unload: gone from the list and refused by name (Triton: 400)
  bus.emit({ type: 'model.state', t: 20, ...M, state: 'UNLOADING' });
  bus.emit({ type: 'model.state', t: 21, ...M, state: 'UNAVAILABLE', reason: 'unloaded' });
  ready = [];
  assert.deepEqual(stats.modelStats(), []);
  assert.throws(() => stats.modelStats('mlp'), /requested model 'mlp' is not available/);
  // reload: counters restart from zero
  bus.emit({ type: 'model.state', t: 30, ...M, state: 'LOADING' });
  bus.emit({ type: 'model.state', t: 31, ...M, state: 'READY' });
  ready = [{ name: 'mlp', version: '1' }];
  const [again] = stats.modelStats('mlp');
  assert.equal(again.inference_stats.success.count, 0);
  assert.equal(again.execution_count, 0);
  stats.close();
});
