/**
 * Triton's HTTP answers where qa/L0_http (http_test.py, http_input_size_limit_test.py,
 * http_request_many_chunks.py) checks them (issue 55): bodies over --http-max-input-size, the chunk bound,
 * raw binary requests answered in binary, shape overflow, nesting, the index's 'ready', unknown routes,
 * digit-only versions, the advertised extensions. Real servers on port 0 (fake runtime where no model runs).
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { buildApp, type InferScopeApp } from '../../apps/server/src/app.ts';
import { fakeRuntime, makeRepository, cfg } from '../repository/fakes.ts';
import { startTestServer } from '../support/server.ts';
import { postHead, rawRequest } from '../reliability/raw-http.ts';

const FP32 = cfg({
  platform: 'onnxruntime_onnx', max_batch_size: 8,
  input: [{ name: 'INPUT0', data_type: 'TYPE_FP32', dims: [-1] }], output: [{ name: 'OUTPUT0', data_type: 'TYPE_FP32', dims: [-1] }],
});
const LIMIT = 64 * 1024;

const apps: InferScopeApp[] = [];
after(async () => { for (const a of apps) await a.close(); });

async function fakeServer(extra: Record<string, unknown> = {}) {
  const repo = await makeRepository({ 'm/config.pbtxt': FP32, 'm/1/model.onnx': 'x' });
  const s = await buildApp({ modelRepositories: [repo], runtime: fakeRuntime(), live: false, metricsPort: null, httpPort: 0, host: '127.0.0.1', webDist: join(repo, 'no-dist'), inferBodyLimit: LIMIT, ...extra });
  apps.push(s);
  return s;
}

const limitHint = 'Use --http-max-input-size to increase the limit.';

test('a body over --http-max-input-size: 400 with Triton\'s words for JSON, raw binary and gzip, sent with a length or chunked', async () => {
  const s = await fakeServer();
  const { url } = await s.listen();
  const port = Number(new URL(url).port);
  const json = Buffer.from(JSON.stringify({ inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 20000], data: new Array(20000).fill(1.5) }] }));
  assert.ok(json.byteLength > LIMIT);
  const jsonError = { error: `request JSON size of ${json.byteLength} bytes exceeds the maximum allowed input size of ${LIMIT} bytes. ${limitHint}` };

  // a declared length: refused before the body is read, and the connection stays usable
  const declared = await fetch(`${url}/v2/models/m/infer`, { method: 'POST', body: json, headers: { 'content-type': 'application/json' } });
  assert.equal(declared.status, 400);
  assert.deepEqual(await declared.json(), jsonError);

  // chunked: read to its end (counted, not kept), the real size quoted
  const chunk = (b: Buffer) => Buffer.concat([Buffer.from(`${b.byteLength.toString(16)}\r\n`), b, Buffer.from('\r\n')]);
  const halves = [json.subarray(0, 40000), json.subarray(40000)];
  const chunked = await rawRequest(port, postHead('/v2/models/m/infer', { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' }),
    Buffer.concat([...halves.map(chunk), Buffer.from('0\r\n\r\n')]));
  assert.equal(chunked.status, 400);
  assert.deepEqual(JSON.parse(chunked.body), jsonError);

  const raw = Buffer.alloc(LIMIT + 128);
  const rawReply = await fetch(`${url}/v2/models/m/infer`, { method: 'POST', body: raw, headers: { 'inference-header-content-length': '0' } });
  assert.equal(rawReply.status, 400);
  assert.deepEqual(await rawReply.json(), {
    error: `Raw input has a byte_size (${raw.byteLength} bytes) that exceeds the maximum allowed value of ${LIMIT} bytes. ${limitHint}`,
  });

  const bomb = gzipSync(Buffer.alloc(LIMIT + 1024, 0x20));
  assert.ok(bomb.byteLength < LIMIT);
  const gz = await fetch(`${url}/v2/models/m/infer`, { method: 'POST', body: bomb, headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } });
  assert.equal(gz.status, 400);
  assert.deepEqual(await gz.json(), { error: `Decompressed data size exceeds the maximum allowed value of ${LIMIT} bytes. ${limitHint}` });

  // the load route takes the flag's limit too (file: contents are model files)
  const load = await fetch(`${url}/v2/repository/models/m/load`, { method: 'POST', body: JSON.stringify({ parameters: { config: '{}', 'file:1/model.onnx': 'A'.repeat(LIMIT) } }) });
  assert.equal(load.status, 400);
  assert.match(((await load.json()) as { error: string }).error, /^request JSON size of \d+ bytes exceeds the maximum allowed input size of 65536 bytes\. Use --http-max-input-size/);

  const ok = await fetch(`${url}/v2/health/live`);
  assert.equal(ok.status, 200, 'the server keeps serving');
});

test("more than 65,536 non-empty chunks: Triton's 400 and message; exactly 65,536 are read as a body", async () => {
  const s = await fakeServer({ inferBodyLimit: 1024 * 1024 });
  const { url } = await s.listen();
  const port = Number(new URL(url).port);
  const head = postHead('/v2/models/m/infer', { 'Inference-Header-Content-Length': '0', 'Content-Type': 'application/octet-stream', 'Transfer-Encoding': 'chunked' });
  const body = (n: number) => Buffer.concat([Buffer.from('1\r\nA\r\n'.repeat(n)), Buffer.from('0\r\n\r\n')]);

  const over = await rawRequest(port, head, body(65537), { timeoutMs: 20_000 });
  assert.equal(over.status, 400);
  assert.deepEqual(JSON.parse(over.body), { error: 'Chunked request body exceeds maximum of 65536 non-empty chunks. Send fewer or larger HTTP chunks.' });

  // 65,536 bytes: 16,384 FP32 values of the model's variable-length input, answered in binary
  const at = await rawRequest(port, head, body(65536), { timeoutMs: 20_000 });
  assert.equal(at.status, 200, at.body.slice(0, 200));
  assert.equal(at.headers['content-type'], 'application/octet-stream');
  assert.equal((await fetch(`${url}/v2/health/live`)).status, 200);
});

test('a raw binary request is answered in binary: Inference-Header-Content-Length, then the outputs\' bytes', async () => {
  const server = await startTestServer({ live: false, modelControlMode: 'explicit', loadModels: ['mlp_classifier'] });
  try {
    const x = new Float32Array(784).map((_, i) => (i % 7) / 7);
    const raw = await fetch(`${server.url}/v2/models/mlp_classifier/infer`, { method: 'POST', body: Buffer.from(x.buffer), headers: { 'inference-header-content-length': '0' } });
    assert.equal(raw.status, 200);
    assert.equal(raw.headers.get('content-type'), 'application/octet-stream');
    const headerLength = Number(raw.headers.get('inference-header-content-length'));
    const body = Buffer.from(await raw.arrayBuffer());
    const header = JSON.parse(body.subarray(0, headerLength).toString()) as { outputs: { name: string; parameters: { binary_data_size: number } }[] };
    assert.equal(header.outputs.reduce((n, o) => n + o.parameters.binary_data_size, 0), body.byteLength - headerLength);

    // the same input as JSON, asking for binary outputs: the same bytes
    const json = await fetch(`${server.url}/v2/models/mlp_classifier/infer`, {
      method: 'POST', body: JSON.stringify({ inputs: [{ name: 'input', datatype: 'FP32', shape: [1, 784], data: [...x] }], parameters: { binary_data_output: true } }),
    });
    const jsonBody = Buffer.from(await json.arrayBuffer());
    const jsonHeaderLength = Number(json.headers.get('inference-header-content-length'));
    assert.deepEqual(body.subarray(headerLength), jsonBody.subarray(jsonHeaderLength));
  } finally {
    await server.close();
  }
});

test("shapes whose element count or byte size overflow int64: Triton's messages", async () => {
  const s = await fakeServer();
  const infer = (shape: number[], datatype = 'FP32') =>
    s.app.inject({ method: 'POST', url: '/v2/models/m/infer', payload: { inputs: [{ name: 'INPUT0', datatype, shape, data: [1] }] } });
  const count = await infer([2 ** 4, 2 ** 60 + 2]);
  assert.equal(count.statusCode, 400);
  assert.equal(count.json().error, "invalid shape for input 'INPUT0': shape [16,1152921504606846976] causes total element count to exceed maximum size of 9223372036854775807");
  const bytes = await infer([2 ** 2, 2 ** 60 + 2]);
  assert.equal(bytes.statusCode, 400);
  assert.equal(bytes.json().error,
    "byte size overflow for input 'INPUT0': element count (4611686018427387904) * data type size (4) exceeds maximum allowed size (9223372036854775807)");
  const dim = await infer([2 ** 63]);
  assert.match(dim.json().error, /^invalid shape for input 'INPUT0': shape \[9223372036854775808\] contains one or more invalid dimensions$/);
  for (const bad of [[2, -5], [1.5], [2 ** 64]]) {
    const r = await infer(bad);
    assert.equal(r.statusCode, 400, JSON.stringify(bad));
    assert.equal(r.json().error, "Unable to parse 'shape': attempt to access JSON non-unsigned-integer as unsigned-integer");
  }
  // Inference-Header-Content-Length is an int32 first (qa/L0_http test_inference_header_content_length_out_of_range)
  const header = await s.app.inject({ method: 'POST', url: '/v2/models/m/infer', headers: { 'inference-header-content-length': '99999999999' }, payload: { inputs: [] } });
  assert.deepEqual([header.statusCode, header.json()], [400, { error: 'Unable to parse Inference-Header-Content-Length, value is out of range [ -2147483648, 2147483647 ], got: 99999999999' }]);
  // a zero dimension ends the count before any overflow, as Triton's GetElementCount
  assert.doesNotMatch((await infer([0, 2 ** 62, 2 ** 62])).json().error ?? '', /overflow|exceed maximum size/);
  // ... but not one that comes after the overflow, nor after a dimension past int64
  assert.match((await infer([2 ** 62, 4, 0])).json().error, /causes total element count to exceed maximum size/);
  assert.match((await infer([2 ** 63, 0])).json().error, /contains one or more invalid dimensions/);
  // a shape whose byte size passes 2^53 but not int64 is counted exactly: refused only by the element bound
  assert.match((await infer([2 ** 30, 2 ** 22])).json().error, /has 4503599627370496 elements, more than the 2147483647 allowed/);
});

test("nesting: Triton's '(100)' for data nested too deep; the index answers about 'ready' however deep it is", async () => {
  const s = await fakeServer();
  const nest = (depth: number, v: unknown): unknown => { let x = v; for (let i = 0; i < depth; i++) x = [x]; return x; };
  const deep = await s.app.inject({ method: 'POST', url: '/v2/models/m/infer', payload: { inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 1], data: nest(120, 1) }] } });
  assert.equal(deep.statusCode, 400);
  assert.match(deep.json().error, /JSON nesting depth exceeds maximum allowed limit \(100\)/);
  const shallow = await s.app.inject({ method: 'POST', url: '/v2/models/m/infer', payload: { inputs: [{ name: 'INPUT0', datatype: 'FP32', shape: [1, 1], data: nest(50, 1) }] } });
  assert.doesNotMatch(shallow.body, /nesting/);
  // other control routes keep the bound (their bodies are walked)
  const trace = await s.app.inject({ method: 'POST', url: '/v2/trace/setting', payload: JSON.stringify({ trace_level: nest(150, 'x') }) });
  assert.match(trace.json().error, /nesting depth exceeds maximum allowed limit \(100\)/);

  const depth = 250_000;
  const index = await s.app.inject({ method: 'POST', url: '/v2/repository/index', headers: { 'content-type': 'application/json' }, payload: `{"ready":${'['.repeat(depth)}true${']'.repeat(depth)}}` });
  assert.equal(index.statusCode, 400);
  assert.deepEqual(index.json(), { error: "Invalid value for 'ready': expected a boolean" });
  assert.equal((await s.app.inject({ url: '/v2/health/live' })).statusCode, 200);
});

test('unknown routes answer {"error": "Not Found"}; a version is digits; /v2 advertises unload_dependents and sequence', async () => {
  const s = await fakeServer();
  for (const url of ['/v3/foo', '/v2/models/m/versions/abc/ready', '/v2/models/m/versions/1x', '/v2/models/m/versions/-1/config']) {
    const r = await s.app.inject({ url });
    assert.equal(r.statusCode, 404, url);
    assert.deepEqual(r.json(), { error: 'Not Found' }, url);
  }
  const infer = await s.app.inject({ method: 'POST', url: '/v2/models/m/versions/abc/infer', payload: {} });
  assert.deepEqual([infer.statusCode, infer.json()], [404, { error: 'Not Found' }]);
  assert.equal((await s.app.inject({ url: '/v2/models/m/versions/1/ready' })).statusCode, 200);
  const { extensions } = (await s.app.inject({ url: '/v2' })).json() as { extensions: string[] };
  assert.ok(extensions.includes('model_repository') && extensions.includes('model_repository(unload_dependents)'));
  assert.ok(extensions.includes('sequence'), 'stateful models are served by the sequence batcher');
});
