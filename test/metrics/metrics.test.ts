// Prometheus metrics from a synthetic event stream: Triton's names/labels, values, format, endpoint.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { EventBus } from '@inferscope/core';
import { createMetrics, startMetricsServer } from '../../apps/server/src/metrics/index';
import { renderFamilies } from '../../apps/server/src/metrics/exposition';
import { syntheticStream } from '../kserve/synthetic-events';
import { checkExposition, value } from './format-check';

const L = { model: 'mlp', version: '1' };

test('inference counters, pending gauge and failure reasons follow the event stream', () => {
  const bus = new EventBus();
  const metrics = createMetrics(bus, { models: () => [{ name: 'mlp', version: '1' }, { name: 'idle', version: '3' }] });
  const stream = syntheticStream();
  // Mid-stream: five queued, none batched yet -> five pending.
  stream.slice(0, 5).forEach((e) => bus.emit(e));
  assert.equal(value(checkExposition(metrics.render()).samples, 'nv_inference_pending_request_count', L), 5);
  stream.slice(5).forEach((e) => bus.emit(e));

  const { samples, types } = checkExposition(metrics.render());
  assert.equal(value(samples, 'nv_inference_request_success', L), 3);
  assert.equal(value(samples, 'nv_inference_count', L), 4);
  assert.equal(value(samples, 'nv_inference_exec_count', L), 2);
  // the timeout counts; the queue-full refusal at the door never reached the model (Triton counts neither
  // it nor invalid requests)
  assert.equal(value(samples, 'nv_inference_request_failure', { ...L, reason: 'REJECTED' }), 1);
  assert.equal(value(samples, 'nv_inference_request_failure', { ...L, reason: 'BACKEND' }), 1);
  assert.equal(value(samples, 'nv_inference_request_failure', { ...L, reason: 'OTHER' }), 0);
  assert.equal(value(samples, 'nv_inference_request_duration_us', L), 300 + 290 + 340);
  assert.equal(value(samples, 'nv_inference_queue_duration_us', L), 100 + 90 + 290);
  assert.equal(value(samples, 'nv_inference_compute_infer_duration_us', L), 200 + 200 + 50);
  assert.equal(value(samples, 'nv_inference_compute_input_duration_us', L), 0);
  assert.equal(value(samples, 'nv_inference_pending_request_count', L), 0);
  // An idle model has zero series, so dashboards see it before its first request.
  assert.equal(value(samples, 'nv_inference_count', { model: 'idle', version: '3' }), 0);
  assert.equal(types.get('nv_inference_count'), 'counter');
  assert.equal(types.get('nv_inference_pending_request_count'), 'gauge');
  const util = value(samples, 'nv_cpu_utilization', {})!;
  assert.ok(util >= 0 && util <= 1);
  assert.ok(value(samples, 'nv_cpu_memory_used_bytes', {})! > 0);
  assert.equal(value(samples, 'nv_pinned_memory_pool_total_bytes', {}), 0, 'Triton\'s pinned pool gauges are there (nothing is pinned)');
  assert.equal(value(samples, 'nv_pinned_memory_pool_used_bytes', {}), 0);
  metrics.close();
  assert.equal(bus.size, 0);
});

test('series belong to a loaded version: gone after unload, from zero after reload; load duration', () => {
  const bus = new EventBus();
  let served = [{ name: 'mlp', version: '1' }];
  const metrics = createMetrics(bus, { cpu: false, models: () => served });
  bus.emit({ type: 'model.state', t: 1_000_000, ...L, state: 'LOADING' });
  bus.emit({ type: 'model.state', t: 3_500_000, ...L, state: 'READY' });
  syntheticStream().forEach((e) => bus.emit(e));
  let { samples } = checkExposition(metrics.render());
  assert.equal(value(samples, 'nv_model_load_duration_secs', L), 2.5);
  assert.equal(value(samples, 'nv_inference_request_success', L), 3);
  bus.emit({ type: 'request.rejected', t: 9, ...L, request_id: 'x', reason: 'invalid', message: 'bad' });
  assert.equal(value(checkExposition(metrics.render()).samples, 'nv_inference_request_failure', { ...L, reason: 'OTHER' }), 0, 'invalid: not a failure');
  bus.emit({ type: 'model.state', t: 4_000_000, ...L, state: 'UNLOADING' });
  bus.emit({ type: 'model.state', t: 4_100_000, ...L, state: 'UNAVAILABLE', reason: 'unloaded' });
  served = [];
  ({ samples } = checkExposition(metrics.render()));
  assert.equal(samples.filter((s) => s.labels.model === 'mlp').length, 0, 'no mlp series after unload');
  bus.emit({ type: 'model.state', t: 5_000_000, ...L, state: 'LOADING' });
  bus.emit({ type: 'model.state', t: 5_250_000, ...L, state: 'READY' });
  served = [{ name: 'mlp', version: '1' }];
  ({ samples } = checkExposition(metrics.render()));
  assert.equal(value(samples, 'nv_inference_request_success', L), 0, 'counters restart');
  assert.equal(value(samples, 'nv_model_load_duration_secs', L), 0.25);
  metrics.close();
});

test('memory gauges from memory events, GPU devices also as nv_gpu_memory_used_bytes', () => {
  const bus = new EventBus();
  const metrics = createMetrics(bus, {
    cpu: false,
    memory: [{ device: 'cpu', used_bytes: 10, budget_bytes: 0, entries: [] }],
  });
  bus.emit({
    type: 'memory', t: 5, device: 'gpu0', used_bytes: 3 << 20, budget_bytes: 8 << 20,
    entries: [{ model: 'mlp', version: '1', instance: 'mlp_0_0', bytes: 3 << 20, source: 'modelled' }],
  });
  const { samples } = checkExposition(metrics.render());
  assert.equal(value(samples, 'inferscope_memory_used_bytes', { device: 'cpu' }), 10);
  assert.equal(value(samples, 'inferscope_memory_budget_bytes', { device: 'gpu0' }), 8 << 20);
  assert.equal(value(samples, 'inferscope_instance_memory_bytes', { instance: 'mlp_0_0', source: 'modelled' }), 3 << 20);
  assert.equal(value(samples, 'nv_gpu_memory_used_bytes', { gpu_uuid: 'gpu0' }), 3 << 20);
  assert.equal(value(samples, 'nv_cpu_utilization', {}), undefined);
  metrics.close();
});

test('label values and help text are escaped', () => {
  const text = renderFamilies([
    { name: 'x_total', help: 'a \\ b\nc', type: 'counter', samples: [{ labels: { model: 'we"ird\\na\nme' }, value: 1 }] },
  ]);
  assert.equal(text, '# HELP x_total a \\\\ b\\nc\n# TYPE x_total counter\nx_total{model="we\\"ird\\\\na\\nme"} 1\n');
  const { samples } = checkExposition(text);
  assert.equal(samples[0].labels.model, 'we"ird\\na\nme');
});

test('metrics endpoint serves /metrics on its own port; promtool agrees when installed', async () => {
  const bus = new EventBus();
  const metrics = createMetrics(bus);
  syntheticStream().forEach((e) => bus.emit(e));
  const server = await startMetricsServer({ port: 0, host: '127.0.0.1', metrics });
  try {
    const res = await fetch(server.url);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    checkExposition(text);
    assert.match(text, /^nv_inference_count\{model="mlp",version="1"\} 4$/m);
    assert.equal((await fetch(server.url.replace('/metrics', '/other'))).status, 404);
    assert.equal((await fetch(server.url, { method: 'POST' })).status, 405);

    const promtool = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    if (promtool.error) return; // not installed: our own checker above is the gate
    // Exit 1 = the text does not parse. Exit 3 = naming lints only, which Triton's own names trip
    // (counters without _total, nv_inference_count ending in _count, _us units); anything else is real.
    assert.notEqual(promtool.status, 1, promtool.stdout + promtool.stderr);
    const problems = `${promtool.stdout}${promtool.stderr}`
      .split('\n')
      .filter((l) => l.trim() && !/_total" suffix|should not have "_count" suffix|abbreviated units/.test(l));
    assert.deepEqual(problems, []);
  } finally {
    await server.close();
    metrics.close();
  }
});
