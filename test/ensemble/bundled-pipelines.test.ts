// The bundled repository's ensembles: image_pipeline (python image_preprocess -> onnxruntime
// cnn_classifier) and text_pipeline (python text_tokenizer -> onnxruntime text_encoder). With the python
// backend, each answers exactly what its steps give when run by hand (the pre-processing redone here in
// TypeScript, the ONNX model called on its own). Without it, both python models and both ensembles are
// UNAVAILABLE with a reason naming the python backend, and the rest of the repository serves.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { EnsembleStepEvent } from '@inferscope/core';
import { startTestServer, type TestServer } from '../support/server.ts';

let server: TestServer;
before(async () => { server = await startTestServer({ live: false }); });
after(async () => { await server?.close(); });

const post = async (model: string, body: unknown) => {
  const res = await fetch(`${server.url}/v2/models/${model}/infer`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
};
const state = (model: string) => server.built.manager.get(model);
const pythonReady = () => state('image_preprocess')?.state === 'READY';
const close = (got: number[], want: number[], tol = 1e-5) => {
  assert.equal(got.length, want.length);
  got.forEach((v, i) => assert.ok(Math.abs(v - want[i]!) <= tol, `element ${i}: ${v} vs ${want[i]}`));
};

test('without the python backend: the python models and their ensembles say why, the rest serves', async (t) => {
  if (pythonReady()) return t.skip('the python backend is available here');
  for (const m of ['image_preprocess', 'text_tokenizer']) {
    assert.equal(state(m)?.state, 'UNAVAILABLE');
    assert.match(state(m)?.reason ?? '', /backend 'python'/);
  }
  assert.match(state('image_pipeline')?.reason ?? '', /composing model 'image_preprocess' is not ready .*backend 'python'/);
  assert.match(state('text_pipeline')?.reason ?? '', /composing model 'text_tokenizer' is not ready .*backend 'python'/);
  const image = { name: 'image', datatype: 'FP32', shape: [1, 3, 64, 64], data: new Array(3 * 64 * 64).fill(0.5) };
  assert.equal((await post('cnn_classifier', { inputs: [image] })).status, 200);
});

const MEAN = [0.485, 0.456, 0.406];
const STD = [0.229, 0.224, 0.225];

/** image_preprocess by hand: HWC uint8 -> CHW (x/255 - mean) / std */
function preprocess(hwc: Uint8Array): number[] {
  const out = new Array<number>(3 * 64 * 64);
  for (let y = 0; y < 64; y++) for (let x = 0; x < 64; x++) for (let c = 0; c < 3; c++) {
    out[c * 4096 + y * 64 + x] = (hwc[(y * 64 + x) * 3 + c]! / 255 - MEAN[c]!) / STD[c]!;
  }
  return out;
}

test('image_pipeline = image_preprocess then cnn_classifier, by hand', async (t) => {
  if (!pythonReady()) return t.skip(`python backend not available: ${state('image_preprocess')?.reason}`);
  const images = [0, 1].map((k) => Uint8Array.from({ length: 64 * 64 * 3 }, (_, i) => (i * (7 + k) + k * 31) % 256));
  const res = await post('image_pipeline', { inputs: [{ name: 'raw_image', datatype: 'UINT8', shape: [2, 64, 64, 3], data: images.flatMap((im) => [...im]) }] });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual(res.body.outputs[0].shape, [2, 10]);
  const direct = await post('cnn_classifier', { inputs: [{ name: 'image', datatype: 'FP32', shape: [2, 3, 64, 64], data: images.flatMap(preprocess) }] });
  close(res.body.outputs[0].data, direct.body.outputs[0].data);
  const parents = server.events.filter((e): e is EnsembleStepEvent => e.type === 'ensemble.step' && e.parent.model === 'image_pipeline').map((e) => e.model);
  assert.deepEqual(parents.slice(-2), ['image_preprocess', 'cnn_classifier']);
});

/** text_tokenizer by hand: lower-cased words, FNV-1a 32 bit, ids 1..2047 */
function tokens(text: string): number[] {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const ids = words.map((w) => {
    let h = 0x811c9dc5;
    for (const b of new TextEncoder().encode(w)) h = Math.imul(h ^ b, 0x01000193) >>> 0;
    return 1 + (h % 2047);
  });
  return ids.length > 0 ? ids : [0];
}

test('text_pipeline = text_tokenizer then text_encoder, by hand', async (t) => {
  if (!pythonReady()) return t.skip(`python backend not available: ${state('text_tokenizer')?.reason}`);
  const text = 'Dynamic batching pays for a memory-bound MLP';
  const res = await post('text_pipeline', { inputs: [{ name: 'text', datatype: 'BYTES', shape: [1, 1], data: [text] }] });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const ids = tokens(text);
  assert.equal(ids.length, 8);
  const direct = await post('text_encoder', { inputs: [{ name: 'token_ids', datatype: 'INT64', shape: [1, ids.length], data: ids }] });
  close(res.body.outputs[0].data, direct.body.outputs[0].data);
});
