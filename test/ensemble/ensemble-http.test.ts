// Ensembles end to end over HTTP on the real server (port 0) with real onnxruntime models: outputs equal
// the steps run by hand (JSON and binary), requested outputs prune steps, each step is batched by its own
// model's scheduler, a failing step fails only its ensemble request with that step's message, and the
// statistics of the ensemble and of its composing models count as Triton's do.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { BatchFormedEvent, EnsembleStepEvent, RequestCompletedEvent } from '@inferscope/core';
import { startTestServer, type TestServer } from '../support/server.ts';
import { ensembleRepository, expected, expectedLookup, type Fixture } from './fixtures.ts';
import '../support/test-hooks.ts';

let fx: Fixture;
let server: TestServer;
before(async () => {
  fx = await ensembleRepository(['scale', 'project', 'negate', 'lookup', 'pipe', 'lookup_pipe']);
  server = await startTestServer({ modelRepositories: [fx.dir], live: false });
});
after(async () => {
  await server?.close();
  await fx?.remove();
});

const post = (path: string, body: unknown) =>
  fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const get = async (path: string) => (await fetch(`${server.url}${path}`)).json();
const pipeBody = (x: number[], outputs?: string[]) => ({
  inputs: [{ name: 'IN', datatype: 'FP32', shape: [x.length / 4, 4], data: x }],
  ...(outputs ? { outputs: outputs.map((name) => ({ name })) } : {}),
});
const close = (got: number[], want: number[]) => {
  assert.equal(got.length, want.length);
  got.forEach((v, i) => assert.ok(Math.abs(v - want[i]!) < 1e-5, `element ${i}: ${v} vs ${want[i]}`));
};
const stepsOf = (ensembleRequestId: string) =>
  server.events.filter((e): e is EnsembleStepEvent => e.type === 'ensemble.step' && e.parent.request_id === ensembleRequestId);
const ensembleDone = (model: string) =>
  server.events.filter((e): e is RequestCompletedEvent => e.type === 'request.completed' && e.model === model);

test('metadata and config of an ensemble answer as Triton: platform "ensemble", its own inputs and outputs', async () => {
  assert.deepEqual(await get('/v2/models/pipe'), {
    name: 'pipe', versions: ['1'], platform: 'ensemble',
    inputs: [{ name: 'IN', datatype: 'FP32', shape: [-1, -1] }],
    outputs: [{ name: 'OUT', datatype: 'FP32', shape: [-1, 3] }, { name: 'NEG', datatype: 'FP32', shape: [-1, 4] }],
  });
  const config = await get('/v2/models/pipe/config');
  assert.equal(config.platform, 'ensemble');
  assert.deepEqual(config.ensemble_scheduling.step.map((s: { model_name: string }) => s.model_name), ['scale', 'project', 'negate']);
  assert.equal((await fetch(`${server.url}/v2/models/pipe/ready`)).status, 200);
});

test('JSON: the outputs equal the steps run by hand, batch of 2', async () => {
  const x = [0.5, -1, 2, 3, 1, 2, 3, 4];
  const res = await post('/v2/models/pipe/infer', pipeBody(x));
  assert.equal(res.status, 200);
  const body = await res.json();
  assert.equal(body.model_name, 'pipe');
  assert.deepEqual(body.outputs.map((o: { name: string }) => o.name), ['OUT', 'NEG']);
  assert.deepEqual(body.outputs[0].shape, [2, 3]);
  close(body.outputs[0].data, expected(x).OUT);
  close(body.outputs[1].data, expected(x).NEG);
  // independent steps run side by side: negate is sent before scale has answered; project after it
  const last = ensembleDone('pipe').at(-1)!;
  const at = (pred: (e: (typeof server.events)[number]) => boolean) => server.events.findIndex(pred);
  const sent = (model: string) => at((e) => e.type === 'ensemble.step' && e.model === model && e.parent.request_id === last.request_id);
  const scaleDone = at((e) => e.type === 'request.completed' && e.model === 'scale' && e.request_id === `${last.request_id}#0`);
  assert.ok(sent('scale') < scaleDone && sent('negate') < scaleDone, 'scale and negate in flight together');
  assert.ok(sent('project') > scaleDone, 'project waits for scale');
  assert.equal(last.steps, 3);
});

test('binary tensors in and out give the same numbers', async () => {
  const x = Float32Array.from([1, 0, -1, 0.25, 2, 4, 8, 16]);
  const header = Buffer.from(JSON.stringify({
    inputs: [{ name: 'IN', datatype: 'FP32', shape: [2, 4], parameters: { binary_data_size: 32 } }],
    outputs: [{ name: 'OUT', parameters: { binary_data: true } }],
  }));
  const res = await fetch(`${server.url}/v2/models/pipe/infer`, {
    method: 'POST',
    headers: { 'content-type': 'application/octet-stream', 'inference-header-content-length': String(header.byteLength) },
    body: Buffer.concat([header, Buffer.from(x.buffer)]),
  });
  assert.equal(res.status, 200);
  const bytes = Buffer.from(await res.arrayBuffer());
  const headerLength = Number(res.headers.get('inference-header-content-length'));
  const json = JSON.parse(bytes.subarray(0, headerLength).toString());
  assert.equal(json.outputs.length, 1);
  assert.equal(json.outputs[0].parameters.binary_data_size, 24);
  const out = bytes.subarray(headerLength);
  close([...new Float32Array(out.buffer.slice(out.byteOffset, out.byteOffset + 24))], expected([...x]).OUT);
});

test('requested outputs are honoured: asking only NEG runs only the negate step', async () => {
  const before = ensembleDone('pipe').length;
  const x = [1, 2, 3, 4];
  const body = await (await post('/v2/models/pipe/infer', pipeBody(x, ['NEG']))).json();
  assert.deepEqual(body.outputs.map((o: { name: string }) => o.name), ['NEG']);
  close(body.outputs[0].data, expected(x).NEG);
  const done = ensembleDone('pipe').slice(before);
  assert.equal(done.length, 1);
  assert.deepEqual(stepsOf(done[0]!.request_id).map((s) => s.model), ['negate']);
  assert.equal(done[0]!.steps, 1);
});

test('each step is batched by its own model: one scale batch carries steps of several ensemble requests', async () => {
  const from = server.events.length;
  const xs = Array.from({ length: 8 }, (_, i) => [i, i + 1, i + 2, i + 3]);
  const answers = await Promise.all(xs.map(async (x) => (await post('/v2/models/pipe/infer', pipeBody(x))).json()));
  answers.forEach((a, i) => close(a.outputs[0].data, expected(xs[i]!).OUT));
  const events = server.events.slice(from);
  const parentOf = new Map(events.filter((e): e is EnsembleStepEvent => e.type === 'ensemble.step').map((e) => [`${e.model}/${e.request_id}`, e.parent.request_id]));
  for (const model of ['scale', 'project']) {
    const batches = events.filter((e): e is BatchFormedEvent => e.type === 'batch.formed' && e.model === model);
    const biggest = Math.max(...batches.map((b) => new Set(b.request_ids.map((id) => parentOf.get(`${model}/${id}`))).size));
    assert.ok(biggest >= 2, `${model}: some batch holds steps of several ensemble requests (largest: ${biggest})`);
    // every step request of the 8 ensemble requests went through this model's batches
    assert.equal(batches.reduce((n, b) => n + b.request_ids.length, 0), 8);
  }
});

test('a failing step fails only its own ensemble request, with that step\'s message', async () => {
  const good = Array.from({ length: 8 }, (_, i) => post('/v2/models/pipe/infer', pipeBody([i, 0, 0, 1])));
  const bad = post('/v2/models/pipe/infer', { inputs: [{ name: 'IN', datatype: 'FP32', shape: [1, 5], data: [1, 2, 3, 4, 5] }] });
  const [badRes, ...goodRes] = await Promise.all([bad, ...good]);
  assert.equal(badRes!.status, 400);
  assert.match((await badRes!.json()).error, /unexpected shape for input 'x' for model '(scale|negate)'\. Expected \[-1,4\], got \[1,5\]/);
  for (const [i, r] of goodRes.entries()) {
    assert.equal(r.status, 200);
    close((await r.json()).outputs[0].data, expected([i, 0, 0, 1]).OUT);
  }
});

test('a step that fails inside onnxruntime fails the ensemble request with its error; the next one is served', async () => {
  const bad = await post('/v2/models/lookup_pipe/infer', { inputs: [{ name: 'IDX', datatype: 'INT64', shape: [1, 1], data: [9] }] });
  assert.equal(bad.status, 500);
  assert.match((await bad.json()).error, /out of (data )?bounds|indices/i);
  const ok = await post('/v2/models/lookup_pipe/infer', { inputs: [{ name: 'IDX', datatype: 'INT64', shape: [2, 1], data: [2, 0] }] });
  assert.equal(ok.status, 200);
  close((await ok.json()).outputs[0].data, [...expectedLookup(2), ...expectedLookup(0)]);
});

test('statistics: the ensemble counts its requests and executions, composing models their step requests and batches', async () => {
  const [pipe] = (await get('/v2/models/pipe/stats')).model_stats;
  const done = ensembleDone('pipe');
  const ok = done.filter((e) => e.ok);
  assert.equal(pipe.inference_stats.success.count, ok.length);
  assert.equal(pipe.inference_stats.fail.count, done.length - ok.length);
  assert.ok(pipe.inference_stats.fail.count >= 1);
  assert.equal(pipe.execution_count, ok.length);
  assert.equal(pipe.inference_count, ok.reduce((n, e) => n + e.batch_size, 0));
  assert.ok(pipe.inference_stats.success.ns > 0 && pipe.inference_stats.compute_infer.ns > 0);
  // compute of the ensemble = the compute of its steps (sum over its step requests)
  const stepCompute = new Map<string, number>();
  for (const e of server.events) if (e.type === 'request.completed' && e.model !== 'pipe') stepCompute.set(`${e.model}/${e.request_id}`, e.compute_us);
  // the statistics keep whole microseconds per request (stats/collector.ts): each request's sum is rounded once
  const summed = ok.reduce((n, e) => n + Math.round(stepsOf(e.request_id).reduce((m, s) => m + (stepCompute.get(`${s.model}/${s.request_id}`) ?? 0), 0)), 0);
  assert.ok(Math.abs(pipe.inference_stats.compute_infer.ns - summed * 1000) < 1, `${pipe.inference_stats.compute_infer.ns} vs ${summed * 1000}`);
  assert.deepEqual(pipe.batch_stats.map((b: { batch_size: number }) => b.batch_size).sort(), [...new Set(ok.map((e) => e.batch_size))].sort());

  const [scale] = (await get('/v2/models/scale/stats')).model_stats;
  const scaleSteps = server.events.filter((e) => e.type === 'ensemble.step' && e.model === 'scale').length;
  const scaleBatches = server.events.filter((e) => e.type === 'batch.completed' && e.model === 'scale' && e.ok).length;
  assert.equal(scale.inference_stats.success.count + scale.inference_stats.fail.count, scaleSteps);
  assert.equal(scale.execution_count, scaleBatches);
  assert.ok(scale.execution_count < scale.inference_stats.success.count, 'batching: fewer executions than step requests');
});

test('metrics: the ensemble has its own success, failure and execution counters, nothing left pending', async () => {
  const text = server.built.metrics.render();
  const value = (name: string, model: string, extra = '') => {
    const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes(`model="${model}"`) && l.includes(extra));
    return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
  };
  const done = ensembleDone('pipe');
  const ok = done.filter((e) => e.ok).length;
  assert.equal(value('nv_inference_request_success', 'pipe'), ok);
  assert.equal(value('nv_inference_exec_count', 'pipe'), ok);
  assert.equal(value('nv_inference_pending_request_count', 'pipe'), 0);
  assert.equal(value('nv_inference_pending_request_count', 'scale'), 0);
});

test('a composing model\'s worker crashing mid-batch fails only the ensemble requests in that batch; it restarts and the ensemble serves again', async () => {
  type Ex = { workerOf(i: string): { crash(how: 'throw' | 'exit'): void } | null; describe(): { instance: string; restarts: number }[] };
  const entries = (server.built.manager as unknown as { entries: Map<string, { versions: Map<number, { loaded?: { executor: Ex } }> }> }).entries;
  const ex = entries.get('project')!.versions.get(1)!.loaded!.executor;
  const [{ instance, restarts }] = ex.describe();
  ex.workerOf(instance!)!.crash('throw'); // dies in the next batch it takes
  const xs = [[1, 1, 1, 1, 2, 2, 2, 2], [3, 3, 3, 3, 4, 4, 4, 4]];
  const crashed = await Promise.all(xs.map((x) => post('/v2/models/pipe/infer', pipeBody(x))));
  const failed = crashed.filter((r) => r.status !== 200);
  assert.ok(failed.length >= 1, 'the batch the worker died in failed');
  for (const r of failed) assert.ok(r.status >= 500 && (await r.json()).error.length > 0);
  // the instance restarts; the same ensemble answers again with the right numbers
  const again = await post('/v2/models/pipe/infer', pipeBody(xs[0]!));
  assert.equal(again.status, 200);
  close((await again.json()).outputs[0].data, expected(xs[0]!).OUT);
  assert.equal(ex.describe()[0]!.restarts, restarts + 1);
  const done = ensembleDone('pipe');
  assert.equal(new Set(done.map((e) => e.request_id)).size, done.length, 'one answer per ensemble request');
});
