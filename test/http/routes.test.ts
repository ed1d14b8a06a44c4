// HTTP routes of the read-only KServe v2 API and the repository extension, through app.inject() with the
// fake runtime (no onnxruntime): status codes and messages as Triton's http_server.cc answers them.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { modelConfigToJson } from '@inferscope/core/config';
import { buildApp, type InferScopeApp } from '../../apps/server/src/app.ts';
import { fakeRuntime, makeRepository, cfg } from '../repository/fakes.ts';

const BATCHING = cfg({
  platform: 'onnxruntime_onnx', max_batch_size: 8,
  input: [{ name: 'x', data_type: 'TYPE_FP32', dims: [3, 4] }], output: [{ name: 'y', data_type: 'TYPE_INT64', dims: [2] }],
  version_policy: { all: {} },
});
const NO_BATCH = cfg({ platform: 'onnxruntime_onnx', input: [{ name: 'tok', data_type: 'TYPE_STRING', dims: [-1] }], output: [{ name: 'o', data_type: 'TYPE_FP16', dims: [5] }] });
const FAILS = cfg({ platform: 'onnxruntime_onnx', version_policy: { all: {} }, parameters: { fail: { string_value: 'v2 broken' } } });

const apps: InferScopeApp[] = [];
after(async () => { for (const a of apps) await a.close(); });

async function start(mode: 'none' | 'explicit' = 'none', files?: Record<string, string>, extra: Record<string, unknown> = {}) {
  const repo = await makeRepository(files ?? {
    'batching/config.pbtxt': BATCHING, 'batching/1/model.onnx': 'x', 'batching/2/model.onnx': 'x',
    'nobatch/config.pbtxt': NO_BATCH, 'nobatch/1/model.onnx': 'x',
  });
  const s = await buildApp({ modelRepositories: [repo], modelControlMode: mode, runtime: fakeRuntime(), live: false, metricsPort: null, webDist: join(repo, 'no-dist'), ...extra });
  apps.push(s);
  return { s, repo, get: (url: string) => s.app.inject({ method: 'GET', url }), post: (url: string, payload?: string, headers: Record<string, string> = { 'content-type': 'application/json' }) => s.app.inject({ method: 'POST', url, payload, headers }) };
}

test('server metadata and health', async () => {
  const { get } = await start();
  const meta = (await get('/v2')).json();
  assert.equal(meta.name, 'inferscope');
  assert.match(meta.version, /^\d+\.\d+\.\d+/);
  assert.ok(meta.extensions.includes('model_repository'));
  assert.equal((await get('/v2/health/live')).statusCode, 200);
  assert.equal((await get('/v2/health/ready')).statusCode, 200);
});

test('model metadata: ready versions, KServe datatypes, -1 for the batch dimension', async () => {
  const { get } = await start();
  assert.deepEqual((await get('/v2/models/batching')).json(), {
    name: 'batching', versions: ['1', '2'], platform: 'onnxruntime_onnx',
    inputs: [{ name: 'x', datatype: 'FP32', shape: [-1, 3, 4] }],
    outputs: [{ name: 'y', datatype: 'INT64', shape: [-1, 2] }],
  });
  assert.deepEqual((await get('/v2/models/batching/versions/1')).json().versions, ['1']);
  const nb = (await get('/v2/models/nobatch')).json();
  assert.deepEqual(nb.inputs, [{ name: 'tok', datatype: 'BYTES', shape: [-1] }]);
  assert.deepEqual(nb.outputs, [{ name: 'o', datatype: 'FP16', shape: [5] }]);
});

test('unknown model or version: Triton codes and messages', async () => {
  const { get, s } = await start('none', {
    'ok/config.pbtxt': BATCHING, 'ok/1/model.onnx': 'x',
    'bad/config.pbtxt': FAILS, 'bad/1/model.onnx': 'x',
  });
  const check = async (url: string, status: number, error: string | RegExp) => {
    const r = await get(url);
    assert.equal(r.statusCode, status, url);
    assert.match(r.headers['content-type'] as string, /^application\/json/);
    if (typeof error === 'string') assert.deepEqual(r.json(), { error }, url);
    else assert.match(r.json().error, error, url);
  };
  await check('/v2/models/nope', 404, "Request for unknown model: 'nope' is not found");
  await check('/v2/models/nope/config', 404, "Request for unknown model: 'nope' is not found");
  await check('/v2/models/ok/versions/9', 404, "Request for unknown model: 'ok' version 9 is not found");
  await check('/v2/models/bad/versions/1', 503, "Request for unknown model: 'bad' version 1 is not at ready state");
  await check('/v2/models/bad', 404, "Request for unknown model: 'bad' has no available versions");
  // Triton's model route takes digits only as a version: anything else is no route at all
  await check('/v2/models/ok/versions/abc', 404, 'Not Found');
  await check('/v2/models/ok/versions/abc/ready', 404, 'Not Found');
  await check('/v2/models/ok/versions/0', 400, /integral value > 0/);
  await check('/v2/models/..%2F..%2Fetc', 400, /cannot contain path separators/);
  await check('/v2/models/a%5Cb', 400, /cannot contain path separators/);
  await check('/v2/models/.hidden', 400, /hidden/);
  await check('/v2/nothing-here', 404, 'Not Found');
  await check('/v3/foo', 404, 'Not Found');
  for (const [method, url] of [['POST', '/v2/models/ok'], ['GET', '/v2/repository/index'], ['DELETE', '/v2/health/live'], ['GET', '/v2/models/ok/infer'], ['GET', '/v2/repository/models/ok/load']] as const) {
    const r = await s.app.inject({ method, url });
    assert.equal(r.statusCode, 405, `${method} ${url}`);
    assert.deepEqual(r.json(), { error: 'Method Not Allowed' });
  }
  assert.equal((await get('/v2/health/ready')).statusCode, 400, 'a model that failed to load makes the server not ready');
});

test('readiness of a model version', async () => {
  const { get } = await start('none', { 'ok/config.pbtxt': BATCHING, 'ok/1/model.onnx': 'x', 'bad/config.pbtxt': FAILS, 'bad/1/model.onnx': 'x' });
  assert.equal((await get('/v2/models/ok/ready')).statusCode, 200);
  assert.equal((await get('/v2/models/ok/versions/1/ready')).statusCode, 200);
  // Triton looks the model up first and answers that lookup's error, as every other model route does.
  const cases: Array<[string, number, string]> = [
    ['/v2/models/unknown/ready', 404, "Request for unknown model: 'unknown' is not found"],
    ['/v2/models/ok/versions/2/ready', 404, "Request for unknown model: 'ok' version 2 is not found"],
  ];
  for (const [url, status, error] of cases) {
    const r = await get(url);
    assert.equal(r.statusCode, status, url);
    assert.deepEqual(r.json(), { error }, url);
  }
  const bad = await get('/v2/models/bad/ready');
  assert.ok(bad.statusCode === 404 || bad.statusCode === 503, `a model that failed to load: ${bad.statusCode}`);
  assert.match(bad.json().error, /^Request for unknown model: 'bad'/);
});

test('model config is the normalised config as JSON', async () => {
  const { s, get } = await start();
  const r = await get('/v2/models/batching/config');
  assert.equal(r.statusCode, 200);
  assert.deepEqual(r.json(), JSON.parse(JSON.stringify(modelConfigToJson(s.manager.require('batching').config))));
  assert.equal(r.json().name, 'batching');
});

test('repository index: rows, ready filter, bad bodies', async () => {
  const { post, repo } = await start('explicit', {
    'a/config.pbtxt': BATCHING, 'a/1/model.onnx': 'x',
    'b/config.pbtxt': NO_BATCH, 'b/1/model.onnx': 'x',
  }, { loadModels: ['a'] });
  assert.deepEqual((await post('/v2/repository/index', '{}')).json(), [{ name: 'a', version: '1', state: 'READY' }, { name: 'b' }]);
  assert.deepEqual((await post('/v2/repository/index', '{"ready": true}')).json(), [{ name: 'a', version: '1', state: 'READY' }]);
  assert.equal((await post('/v2/repository/index', undefined, {})).statusCode, 200, 'empty body, like curl -X POST');
  await makeRepository({ 'c/config.pbtxt': NO_BATCH, 'c/1/model.onnx': 'x' }, repo);
  assert.deepEqual((await post('/v2/repository/index', '{}')).json().map((r: { name: string }) => r.name), ['a', 'b', 'c'], 'explicit mode: the index lists models added since start');
  assert.equal((await post('/v2/repository/index', '{"ready": true}', { 'content-type': 'application/x-www-form-urlencoded' })).json().length, 1);
  const badJson = await post('/v2/repository/index', '{"ready": tru');
  assert.equal(badJson.statusCode, 400);
  assert.match(badJson.json().error, /^failed to parse the request JSON buffer/);
  assert.equal((await post('/v2/repository/index', '[1]')).statusCode, 400);
  assert.deepEqual((await post('/v2/repository/index', '{"ready": "yes"}')).json(), { error: "Invalid value for 'ready': expected a boolean" });
});

test('explicit mode load/unload; refused outside explicit mode and for path tricks', async () => {
  const { post, get } = await start('explicit', { 'a/config.pbtxt': BATCHING, 'a/1/model.onnx': 'x' });
  // Readiness answers the model lookup's error, with Triton's words (404: not loaded / no available version).
  assert.deepEqual((await get('/v2/models/a/ready')).json(), { error: "Request for unknown model: 'a' is not found" });
  assert.equal((await get('/v2/models/a/ready')).statusCode, 404);
  const load = await post('/v2/repository/models/a/load', '');
  assert.equal(load.statusCode, 200);
  assert.equal((await get('/v2/models/a/ready')).statusCode, 200);
  assert.equal((await get('/v2/models/a/versions/7/ready')).statusCode, 404);
  assert.equal((await post('/v2/repository/models/a/unload')).statusCode, 200);
  const gone = await get('/v2/models/a/ready');
  assert.equal(gone.statusCode, 404);
  assert.deepEqual(gone.json(), { error: "Request for unknown model: 'a' has no available versions" });
  assert.equal((await get('/v2/models/a/versions/1/ready')).statusCode, 503, 'a known version that is not READY');
  // Triton: unloading a model that is not loaded succeeds and changes nothing.
  assert.equal((await post('/v2/repository/models/never_loaded/unload')).statusCode, 200);
  assert.deepEqual((await post('/v2/repository/index', '{}')).json(), [{ name: 'a', version: '1', state: 'UNAVAILABLE', reason: 'unloaded' }]);
  const unknownLoad = await post('/v2/repository/models/zz/load');
  assert.equal(unknownLoad.statusCode, 500, 'Triton: INTERNAL');
  assert.deepEqual(unknownLoad.json(), { error: "failed to load 'zz', failed to poll from model repository" });
  const trick = await post('/v2/repository/models/..%2Fa/load');
  assert.equal(trick.statusCode, 400);
  assert.match(trick.json().error, /path separators/);
  assert.equal((await post('/v2/repository/models/a/load', '{"parameters": {"config": "{}"}}')).statusCode, 400);
  assert.equal((await post('/v2/repository/models/a/load', '{"parameters": 3}')).statusCode, 400);

  const none = await start('none', { 'a/config.pbtxt': BATCHING, 'a/1/model.onnx': 'x' });
  for (const action of ['load', 'unload']) {
    const r = await none.post(`/v2/repository/models/a/${action}`);
    assert.equal(r.statusCode, 503);
    assert.deepEqual(r.json(), { error: 'explicit model load / unload is not allowed if polling is enabled' });
  }
  assert.equal((await none.get('/v2/models/a/ready')).statusCode, 200, 'the refused unload changed nothing');
});

test("body limit: Triton's 400 and words, quoting the body's size; the flag is named only for its own limit", async () => {
  const { post } = await start('none', undefined, { bodyLimit: 2048 });
  const body = JSON.stringify({ ready: false, pad: 'x'.repeat(5000) });
  const r = await post('/v2/repository/index', body);
  assert.equal(r.statusCode, 400);
  assert.deepEqual(r.json(), { error: `request JSON size of ${body.length} bytes exceeds the maximum allowed input size of 2048 bytes.` });
});

test('dashboard: placeholder without a build, files with content types, no traversal, unknown paths 404', async () => {
  const { get, repo, s } = await start();
  const placeholder = await get('/');
  assert.equal(placeholder.statusCode, 200);
  assert.match(placeholder.headers['content-type'] as string, /^text\/html/);
  assert.match(placeholder.body, /dashboard has not been built yet/);

  const dist = await mkdtemp(join(tmpdir(), 'inferscope-dist-'));
  await mkdir(join(dist, 'assets'));
  await writeFile(join(dist, 'index.html'), '<!doctype html><title>dash</title>');
  await writeFile(join(dist, 'assets', 'app-1234.js'), 'console.log(1)');
  await writeFile(join(dist, 'assets', 'style.css'), 'body{}');
  await writeFile(join(repo, 'secret.txt'), 'do not serve');
  const withDist = await start('none', undefined, { webDist: dist });
  const index = await withDist.get('/');
  assert.equal(index.body, '<!doctype html><title>dash</title>');
  assert.equal(index.headers['cache-control'], 'no-cache');
  const js = await withDist.get('/assets/app-1234.js');
  assert.equal(js.headers['content-type'], 'text/javascript; charset=utf-8');
  assert.match(js.headers['cache-control'] as string, /immutable/);
  assert.equal((await withDist.get('/assets/style.css')).headers['content-type'], 'text/css; charset=utf-8');
  assert.equal((await withDist.get('/?view=flow&model=mlp')).body, '<!doctype html><title>dash</title>', 'the one client-side route, with its state');
  assert.equal((await withDist.get('/index.html')).statusCode, 200);
  assert.equal((await withDist.get('/assets/missing.js')).statusCode, 404);
  // Unknown paths are 404 with and without a build: a health probe never passes on the dashboard page.
  for (const server of [withDist, await start()]) {
    for (const url of ['/healthz', '/models/mlp', '/v1/models', '/api', '/favicon.ico']) {
      const r = await server.get(url);
      assert.equal(r.statusCode, 404, `${url} -> ${r.statusCode}`);
      assert.match(r.json().error, /not found/i);
    }
  }
  for (const url of ['/..%2Fsecret.txt', '/assets/..%2F..%2Fsecret.txt', '/%2e%2e/%2e%2e/package.json', '/..%5c..%5cpackage.json', '/%00']) {
    const r = await withDist.get(url);
    assert.ok(r.statusCode === 404 || r.statusCode === 400, `${url} -> ${r.statusCode}`);
    assert.doesNotMatch(r.body, /do not serve|"workspaces"/);
  }
  void s;
});
