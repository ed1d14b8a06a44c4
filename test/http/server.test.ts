// The real server (real config engine, onnxruntime backend, scheduler) listening on 127.0.0.1 port 0,
// driven over HTTP with fetch: a small repository with a good model, a model without config.pbtxt
// (auto-complete), a config with a syntax error (UNAVAILABLE with line/column while the others serve)
// and a model that appears in two repositories. Explicit mode, so load/unload go through real backends.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cp, mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp, type InferScopeApp } from '../../apps/server/src/app.ts';

const CNN = new URL('../../model_repository/cnn_classifier', import.meta.url).pathname;
let server: InferScopeApp;
let url: string;

before(async () => {
  const repo = await mkdtemp(join(tmpdir(), 'inferscope-http-'));
  const other = await mkdtemp(join(tmpdir(), 'inferscope-http2-'));
  await cp(CNN, join(repo, 'cnn_classifier'), { recursive: true });
  await mkdir(join(repo, 'auto/1'), { recursive: true });
  await cp(join(CNN, '1/model.onnx'), join(repo, 'auto/1/model.onnx'));
  await mkdir(join(repo, 'broken/1'), { recursive: true });
  await cp(join(CNN, '1/model.onnx'), join(repo, 'broken/1/model.onnx'));
  await writeFile(join(repo, 'broken/config.pbtxt'), 'backend: "onnxruntime"\nmax_batch_size: 4\ndynamic_batching { max_queue_delay_microseconds: }\n');
  await mkdir(join(repo, 'twice'), { recursive: true });
  await mkdir(join(other, 'twice'), { recursive: true });
  server = await buildApp({
    modelRepositories: [repo, other],
    modelControlMode: 'explicit',
    loadModels: ['*'],
    httpPort: 0,
    metricsPort: null,
    recordingsDir: join(repo, '..', 'recordings-unused'),
  });
  url = (await server.listen()).url;
});

after(async () => {
  await server?.close();
});

const get = (path: string) => fetch(url + path);
const post = (path: string, body?: string) => fetch(url + path, { method: 'POST', body, headers: body ? { 'content-type': 'application/json' } : {} });

test('listening server: metadata, config, index with per-model failures', async () => {
  assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.equal((await (await get('/v2')).json()).name, 'inferscope');
  assert.deepEqual(await (await get('/v2/models/cnn_classifier')).json(), {
    name: 'cnn_classifier', versions: ['1'], platform: 'onnxruntime_onnx',
    inputs: [{ name: 'image', datatype: 'FP32', shape: [-1, 3, 64, 64] }],
    outputs: [{ name: 'probabilities', datatype: 'FP32', shape: [-1, 10] }],
  });
  const auto = await (await get('/v2/models/auto/config')).json();
  assert.equal(auto.name, 'auto');
  assert.equal(auto.backend, 'onnxruntime');
  assert.equal(auto.input[0].name, 'image', 'inputs filled from the ONNX file');
  assert.ok(auto.max_batch_size > 0);

  const rows = (await (await post('/v2/repository/index', '{}')).json()) as { name: string; state?: string; reason?: string }[];
  const by = Object.fromEntries(rows.map((r) => [r.name, r]));
  assert.equal(by.cnn_classifier.state, 'READY');
  assert.equal(by.auto.state, 'READY');
  assert.equal(by.broken.state, 'UNAVAILABLE');
  assert.match(by.broken.reason ?? '', /line 3, column \d+/);
  assert.equal(by.twice.state, 'UNAVAILABLE');
  assert.match(by.twice.reason ?? '', /model appears in two or more repositories/);
  assert.equal((await get('/v2/health/ready')).status, 400, 'not every model is ready');
  assert.equal((await get('/v2/health/live')).status, 200);
});

test('listening server: inference runs, unload drains and refuses, load brings it back', async () => {
  const image = { name: 'image', datatype: 'FP32', shape: [1, 3, 64, 64], data: new Array(3 * 64 * 64).fill(0.5) };
  const infer = () => post('/v2/models/cnn_classifier/infer', JSON.stringify({ inputs: [image] }));
  const ok = await infer();
  assert.equal(ok.status, 200);
  const out = (await ok.json()) as { outputs: { name: string; shape: number[]; data: number[] }[] };
  assert.deepEqual(out.outputs[0].shape, [1, 10]);

  // Requests in flight when the unload starts are still answered.
  const inflight = Promise.all(Array.from({ length: 4 }, infer));
  const unload = await post('/v2/repository/models/cnn_classifier/unload');
  assert.equal(unload.status, 200);
  for (const r of await inflight) assert.ok(r.status === 200 || r.status === 404 || r.status === 503, `answered: ${r.status}`);
  assert.equal((await get('/v2/models/cnn_classifier/ready')).status, 404, 'no available version');
  const refused = await infer();
  assert.ok(refused.status === 404 || refused.status === 503);
  assert.match(((await refused.json()) as { error: string }).error, /cnn_classifier/);

  assert.equal((await post('/v2/repository/models/cnn_classifier/load')).status, 200);
  assert.equal((await get('/v2/models/cnn_classifier/ready')).status, 200);
  assert.equal((await infer()).status, 200);
});

test('listening server: bad input gets a clear error and the server keeps serving', async () => {
  const bad = await post('/v2/repository/index', '{not json');
  assert.equal(bad.status, 400);
  assert.match(((await bad.json()) as { error: string }).error, /failed to parse the request JSON buffer/);
  const trick = await post('/v2/repository/models/..%2F..%2Fetc/load');
  assert.equal(trick.status, 400);
  const failed = await post('/v2/repository/models/broken/load');
  assert.equal(failed.status, 400);
  assert.match(((await failed.json()) as { error: string }).error, /load failed for model 'broken'.*line 3/);
  assert.equal((await get('/v2/models/cnn_classifier/ready')).status, 200);
});

test('listening server: graceful close answers every request already accepted', async () => {
  const image = { name: 'image', datatype: 'FP32', shape: [1, 3, 64, 64], data: new Array(3 * 64 * 64).fill(0.25) };
  let queued = 0;
  let allQueued!: () => void;
  const accepted = new Promise<void>((r) => { allQueued = r; });
  const off = server.bus.on((e) => {
    if (e.type === 'request.queued' && e.model === 'cnn_classifier' && ++queued === 8) allQueued();
  });
  const sent = Array.from({ length: 8 }, () =>
    post('/v2/models/cnn_classifier/infer', JSON.stringify({ inputs: [image] })).then(
      (r) => r.status,
      (err: Error) => `network error: ${err.message}`,
    ),
  );
  // Shut down once the scheduler has accepted all eight (they are then queued or running).
  await accepted;
  off();
  const t0 = Date.now();
  await server.close();
  assert.ok(Date.now() - t0 < 20_000, `close took ${Date.now() - t0} ms`);
  const statuses = await Promise.all(sent);
  for (const s of statuses) assert.equal(s, 200, `every accepted request is answered, got ${s}`);
  const after = await fetch(url + '/v2').then((r) => r.status, () => 'refused');
  assert.equal(after, 'refused', 'no new connections after close');
});
