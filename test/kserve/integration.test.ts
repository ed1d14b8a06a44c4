// The production server (buildApp) over HTTP on mlp_classifier version 1: outputs equal onnxruntime run directly on the same
// inputs (JSON and binary), and under concurrent load the scheduler really batches, with statistics and
// Prometheus counters agreeing (nv_inference_count / nv_inference_exec_count = average batch size).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import * as ort from 'onnxruntime-node';
import type { Tensor } from '@inferscope/core';
import { buildApp, type InferScopeApp } from '../../apps/server/src/app';
import { checkExposition, value } from '../metrics/format-check';
import { binaryRequest, jsonRequest, parseResponse } from './wire';

const REPO = fileURLToPath(new URL('../../model_repository', import.meta.url));
const MODEL_FILE = `${REPO}/mlp_classifier/1/model.onnx`;

let server: InferScopeApp;
let url: string;
let session: ort.InferenceSession;

before(async () => {
  // The production factory, without the dashboard gateway (not under test here).
  server = await buildApp({ modelRepositories: [REPO], httpPort: 0, metricsPort: null, host: '127.0.0.1', live: false });
  ({ url } = await server.listen());
  ort.env.logLevel = 'fatal';
  session = await ort.InferenceSession.create(MODEL_FILE, { intraOpNumThreads: 1 });
});

after(async () => {
  await session?.release();
  await server?.close();
});

function seeded(n: number, seed: number): Float32Array {
  let s = seed >>> 0;
  return Float32Array.from({ length: n }, () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  });
}

async function direct(data: Float32Array, batch: number): Promise<Float32Array> {
  const out = await session.run({ input: new ort.Tensor('float32', data, [batch, 784]) });
  return out.probabilities.data as Float32Array;
}

function assertClose(actual: unknown[], expected: Float32Array): void {
  assert.equal(actual.length, expected.length);
  for (let i = 0; i < expected.length; i++) {
    assert.ok(Math.abs((actual[i] as number) - expected[i]) <= 1e-6, `element ${i}: ${actual[i]} vs ${expected[i]}`);
  }
}

test('outputs over HTTP equal onnxruntime on the same inputs (JSON and binary)', async () => {
  const data = seeded(3 * 784, 7);
  const input: Tensor = { name: 'input', datatype: 'FP32', shape: [3, 784], data };
  const expected = await direct(data, 3);

  const j = await fetch(`${url}/v2/models/mlp_classifier/versions/1/infer`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: jsonRequest([input], { id: 'json-1' }),
  });
  assert.equal(j.status, 200);
  const jr = parseResponse(Buffer.from(await j.arrayBuffer()));
  assert.equal(jr.id, 'json-1');
  assert.equal(jr.model_version, '1');
  assert.deepEqual(jr.outputs[0].shape, [3, 10]);
  assertClose(jr.outputs[0].values, expected);

  const b = binaryRequest([input], { binaryOutput: true });
  const r = await fetch(`${url}/v2/models/mlp_classifier/versions/1/infer`, {
    method: 'POST',
    headers: { 'content-type': 'application/octet-stream', 'inference-header-content-length': String(b.headerLength) },
    body: new Uint8Array(b.body),
  });
  assert.equal(r.status, 200);
  assert.equal(r.headers.get('content-type'), 'application/octet-stream');
  const br = parseResponse(Buffer.from(await r.arrayBuffer()), Number(r.headers.get('inference-header-content-length')));
  assert.equal(br.outputs[0].binary, true);
  assertClose(br.outputs[0].values, expected);
});

test('under concurrent load batches form; stats and metrics agree', async () => {
  const start = server.stats.modelStats('mlp_classifier', '1')[0];
  const N = 64;
  const bodies = Array.from({ length: N }, (_, i) => binaryRequest([{ name: 'input', datatype: 'FP32', shape: [1, 784], data: seeded(784, i) }], { binaryOutput: true }));
  const responses = await Promise.all(
    bodies.map((b) =>
      fetch(`${url}/v2/models/mlp_classifier/versions/1/infer`, {
        method: 'POST',
        headers: { 'inference-header-content-length': String(b.headerLength) },
        body: new Uint8Array(b.body),
      }),
    ),
  );
  // Each answer is its own request's: check a few against direct onnxruntime.
  for (const i of [0, 17, 63]) {
    assert.equal(responses[i].status, 200);
    const parsed = parseResponse(Buffer.from(await responses[i].arrayBuffer()), Number(responses[i].headers.get('inference-header-content-length')));
    assertClose(parsed.outputs[0].values, await direct(seeded(784, i), 1));
  }

  const res = await fetch(`${url}/v2/models/mlp_classifier/versions/1/stats`);
  const s = (await res.json()).model_stats[0];
  assert.equal(s.inference_count - start.inference_count, N);
  assert.equal(s.inference_stats.success.count - start.inference_stats.success.count, N);
  const samples = s.batch_stats.reduce((a: number, b: any) => a + b.batch_size * b.compute_infer.count, 0);
  const executions = s.batch_stats.reduce((a: number, b: any) => a + b.compute_infer.count, 0);
  assert.equal(samples, s.inference_count);
  assert.equal(executions, s.execution_count);
  assert.ok(s.batch_stats.some((b: any) => b.batch_size > 1), `no batch above 1: ${JSON.stringify(s.batch_stats)}`);
  assert.ok(s.execution_count < s.inference_count);
  // compute_input / compute_output are measured (tensors gathered and made for onnxruntime, outputs copied
  // out and split), each a real part of the batch's span: none is zero, and each is counted per request
  const delta = (k: 'compute_input' | 'compute_infer' | 'compute_output') => ({
    count: s.inference_stats[k].count - start.inference_stats[k].count, ns: s.inference_stats[k].ns - start.inference_stats[k].ns,
  });
  for (const k of ['compute_input', 'compute_infer', 'compute_output'] as const) {
    assert.equal(delta(k).count, N, `${k} counts every request`);
    assert.ok(delta(k).ns > 0, `${k} measured: ${JSON.stringify(delta(k))}`);
    assert.ok(Number.isSafeInteger(s.inference_stats[k].ns), `${k} is integer ns`);
  }
  for (const b of s.batch_stats) assert.ok(b.compute_input.ns > 0 && b.compute_output.ns > 0 && b.compute_infer.ns > 0, JSON.stringify(b));

  const { samples: m } = checkExposition(server.metrics.render());
  const L = { model: 'mlp_classifier', version: '1' };
  assert.equal(value(m, 'nv_inference_count', L), s.inference_count);
  assert.equal(value(m, 'nv_inference_exec_count', L), s.execution_count);
  assert.equal(value(m, 'nv_inference_request_success', L), s.inference_stats.success.count);
  assert.ok(value(m, 'nv_inference_compute_input_duration_us', L)! > 0);
  assert.ok(value(m, 'nv_inference_compute_output_duration_us', L)! > 0);
  const avg = value(m, 'nv_inference_count', L)! / value(m, 'nv_inference_exec_count', L)!;
  assert.ok(avg > 1, `average batch ${avg}`);
});
