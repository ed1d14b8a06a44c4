// StatsCollector from a synthetic event stream, and the stats routes' JSON shape and errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Fastify from 'fastify';
import { EventBus } from '@inferscope/core';
import { StatsCollector } from '../../apps/server/src/stats/collector';
import { registerStatsRoutes } from '../../apps/server/src/stats/routes';

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
  assert.deepEqual(m.inference_stats.fail, { count: 3, ns: 370 * 1000 + 500 * 1000 + 0 });
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
  assert.throws(() => stats.modelStats('nope'), /Request for unknown model: 'nope' is not found/);
  assert.throws(() => stats.modelStats('mlp', '9'), /'mlp' version 9 is not found/);
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
  assert.equal(bad.statusCode, 404);
  assert.deepEqual(JSON.parse(bad.body), { error: "Request for unknown model: 'nope' is not found" });
  const badV = await app.inject({ method: 'GET', url: '/v2/models/mlp/versions/3/stats' });
  assert.equal(badV.statusCode, 404);
  await app.close();
  stats.close();
});
