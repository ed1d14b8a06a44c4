// The production server (buildApp) on port 0 with the demo repository: infer over HTTP equals
// onnxruntime, the stats routes count it, and the metrics port serves Triton's counters for it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import * as ort from 'onnxruntime-node';
import { buildApp, type InferScopeApp } from '../../apps/server/src/app';
import { checkExposition, value } from '../metrics/format-check';
import { binaryRequest, jsonRequest, parseResponse } from './wire';

const REPO = fileURLToPath(new URL('../../model_repository', import.meta.url));
let server: InferScopeApp;
let url: string;
let metricsUrl: string;

before(async () => {
  server = await buildApp({ modelRepositories: [REPO], httpPort: 0, metricsPort: 0, host: '127.0.0.1', live: false });
  ({ url, metricsUrl } = (await server.listen()) as { url: string; metricsUrl: string });
});
after(async () => server?.close());

test('buildApp serves KServe infer (JSON, binary), stats and metrics for the demo models', async () => {
  const data = Float32Array.from({ length: 2 * 784 }, (_, i) => ((i * 37) % 101) / 101);
  ort.env.logLevel = 'fatal';
  const session = await ort.InferenceSession.create(`${REPO}/mlp_classifier/2/model.onnx`, { intraOpNumThreads: 1 });
  const expected = (await session.run({ input: new ort.Tensor('float32', data, [2, 784]) })).probabilities.data as Float32Array;
  await session.release();

  const input = { name: 'input', datatype: 'FP32' as const, shape: [2, 784], data };
  const j = await fetch(`${url}/v2/models/mlp_classifier/versions/2/infer`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: jsonRequest([input], { id: 'x' }),
  });
  assert.equal(j.status, 200, await j.clone().text());
  const jr = parseResponse(Buffer.from(await j.arrayBuffer()));
  assert.equal(jr.model_version, '2');
  jr.outputs[0].values.forEach((v, i) => assert.ok(Math.abs((v as number) - expected[i]) < 1e-6));

  const b = binaryRequest([input], { binaryOutput: true });
  const r = await fetch(`${url}/v2/models/mlp_classifier/versions/2/infer`, {
    method: 'POST',
    headers: { 'inference-header-content-length': String(b.headerLength) },
    body: new Uint8Array(b.body),
  });
  assert.equal(r.status, 200);
  const br = parseResponse(Buffer.from(await r.arrayBuffer()), Number(r.headers.get('inference-header-content-length')));
  br.outputs[0].values.forEach((v, i) => assert.ok(Math.abs((v as number) - expected[i]) < 1e-6));

  // A variable-length model: token ids of length 5 (INT64), batch of 2.
  const t = await fetch(`${url}/v2/models/text_encoder/infer`, {
    method: 'POST',
    body: JSON.stringify({ inputs: [{ name: server.manager.get('text_encoder')!.config.input![0].name, datatype: 'INT64', shape: [2, 5], data: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] }] }),
  });
  assert.equal(t.status, 200, await t.clone().text());

  const unknown = await fetch(`${url}/v2/models/nope/infer`, { method: 'POST', body: '{}' });
  assert.equal(unknown.status, 404);
  assert.deepEqual(await unknown.json(), { error: "Request for unknown model: 'nope' is not found" });

  const stats = (await (await fetch(`${url}/v2/models/mlp_classifier/versions/2/stats`)).json()).model_stats[0];
  assert.equal(stats.inference_count, 4);
  assert.equal(stats.inference_stats.success.count, 2);

  const text = await (await fetch(metricsUrl)).text();
  const { samples } = checkExposition(text);
  assert.equal(value(samples, 'nv_inference_count', { model: 'mlp_classifier', version: '2' }), 4);
  assert.equal(value(samples, 'nv_inference_request_success', { model: 'mlp_classifier', version: '2' }), 2);
  assert.equal(value(samples, 'nv_inference_count', { model: 'mlp_classifier', version: '1' }), 0);
});
