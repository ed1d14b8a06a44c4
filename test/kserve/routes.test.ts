// The infer routes over Fastify's inject, with a small fake model manager (the codec's contract with
// the ModelManager is just get/infer/list): status codes, headers, error bodies, binary round trip.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Fastify from 'fastify';
import { SchedulerError, type InferPayload, type InferResult, type SchedulerRequest } from '@inferscope/core';
import type { ModelConfig } from '@inferscope/core/config/types.ts';
import { registerInferRoutes } from '../../apps/server/src/http/kserve-routes';
import type { InferModelSource, ServedModelView } from '../../apps/server/src/infer/resolve-model';
import { binaryRequest, jsonRequest, parseResponse } from './wire';

const CONFIG: ModelConfig = {
  name: 'doubler',
  max_batch_size: 8,
  input: [{ name: 'IN', data_type: 'TYPE_FP32', dims: [4] }],
  output: [
    { name: 'OUT', data_type: 'TYPE_FP32', dims: [4] },
    { name: 'SUM', data_type: 'TYPE_FP32', dims: [1] },
  ],
};

/** Doubles its input and sums each row: a real computation the tests can check. */
function fakeManager(overrides: Partial<{ fail: Error; state: ServedModelView['state'] }> = {}) {
  const models: ServedModelView[] = [
    { name: 'doubler', version: '1', state: 'READY', config: CONFIG },
    { name: 'doubler', version: '2', state: overrides.state ?? 'UNAVAILABLE', reason: 'load failed', config: CONFIG },
  ];
  const seen: SchedulerRequest<InferPayload>[] = [];
  const manager: InferModelSource = {
    get(name, version) {
      if (version === undefined) return models.filter((m) => m.name === name && m.state === 'READY').at(-1);
      return models.find((m) => m.name === name && m.version === version);
    },
    list: () => models,
    async infer(_name, _version, req): Promise<InferResult> {
      seen.push(req);
      if (overrides.fail) throw overrides.fail;
      const x = req.payload.inputs[0].data as Float32Array;
      const out = x.map((v) => v * 2);
      const sums = new Float32Array(req.batchSize);
      for (let b = 0; b < req.batchSize; b++) for (let i = 0; i < 4; i++) sums[b] += x[b * 4 + i];
      const all = [
        { name: 'OUT', datatype: 'FP32' as const, shape: [req.batchSize, 4], data: out },
        { name: 'SUM', datatype: 'FP32' as const, shape: [req.batchSize, 1], data: sums },
      ];
      return req.payload.outputs ? all.filter((t) => req.payload.outputs!.includes(t.name)) : all;
    },
  };
  return { manager, seen };
}

async function app(manager: InferModelSource, bodyLimit?: number, compressMinBytes?: number) {
  const a = Fastify();
  registerInferRoutes(a, manager, { bodyLimit, compressMinBytes });
  await a.ready();
  return a;
}

const input = (rows: number[][]) => ({ name: 'IN', datatype: 'FP32' as const, shape: [rows.length, 4], data: new Float32Array(rows.flat()) });

test('JSON infer: outputs computed, id echoed, JSON content type, versioned URL too', async () => {
  const { manager, seen } = fakeManager();
  const a = await app(manager);
  for (const url of ['/v2/models/doubler/infer', '/v2/models/doubler/versions/1/infer']) {
    const res = await a.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/json' },
      payload: jsonRequest([input([[1, 2, 3, 4], [0, 0, 0, 1]])], { id: 'abc', parameters: { priority: 1 } }),
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.match(res.headers['content-type'] as string, /application\/json/);
    const body = JSON.parse(res.body);
    assert.equal(body.model_name, 'doubler');
    assert.equal(body.model_version, '1');
    assert.equal(body.id, 'abc');
    assert.deepEqual(body.outputs[0], { name: 'OUT', datatype: 'FP32', shape: [2, 4], data: [2, 4, 6, 8, 0, 0, 0, 2] });
    assert.deepEqual(body.outputs[1].data, [10, 1]);
  }
  assert.equal(seen[0].batchSize, 2);
  assert.equal(seen[0].priority, 1);
  await a.close();
});

test('binary infer: request without content type, binary outputs with header length', async () => {
  const { manager } = fakeManager();
  const a = await app(manager);
  const { body, headerLength } = binaryRequest([input([[1, 1, 1, 1]])], {
    binaryOutput: true,
    outputs: [{ name: 'SUM' }, { name: 'OUT', binary: false }],
  });
  const res = await a.inject({
    method: 'POST',
    url: '/v2/models/doubler/infer',
    headers: { 'inference-header-content-length': String(headerLength) },
    payload: body,
  });
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.headers['content-type'], 'application/octet-stream');
  const parsed = parseResponse(res.rawPayload, Number(res.headers['inference-header-content-length']));
  assert.deepEqual(parsed.outputs.map((o) => [o.name, o.binary, o.values]), [
    ['SUM', true, [4]],
    ['OUT', false, [2, 2, 2, 2]],
  ]);
  await a.close();
});

test('errors: status and {"error"} body for model lookup, validation, scheduler refusals, size', async () => {
  const cases: Array<[string, number, string, InferModelSource?, string?]> = [
    ['/v2/models/nope/infer', 404, "Request for unknown model: 'nope' is not found"],
    ['/v2/models/doubler/versions/7/infer', 404, "Request for unknown model: 'doubler' version 7 is not found"],
    ['/v2/models/doubler/versions/2/infer', 503, "Request for unknown model: 'doubler' version 2 is not at ready state"],
    ['/v2/models/doubler/versions/x1/infer', 400, "invalid model version 'x1'"],
    ['/v2/models/doubler/infer', 503, 'Exceeds maximum queue size', fakeManager({ fail: new SchedulerError('queue_full', 'Exceeds maximum queue size', 'UNAVAILABLE') }).manager],
    ['/v2/models/doubler/infer', 503, 'Request timeout expired', fakeManager({ fail: new SchedulerError('timeout', 'Request timeout expired', 'UNAVAILABLE') }).manager],
    ['/v2/models/doubler/infer', 500, 'worker crashed', fakeManager({ fail: new SchedulerError('failed', 'worker crashed', 'INTERNAL') }).manager],
    ['/v2/models/doubler/infer', 400, "unexpected shape for input 'IN' for model 'doubler'. Expected [-1,4], got [1,3]", undefined,
      JSON.stringify({ inputs: [{ name: 'IN', datatype: 'FP32', shape: [1, 3], data: [1, 2, 3] }] })],
    ['/v2/models/doubler/infer', 400, 'failed to parse the request JSON buffer', undefined, '{"inputs":'],
  ];
  for (const [url, status, message, manager, payload] of cases) {
    const a = await app(manager ?? fakeManager().manager);
    const res = await a.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/json' },
      payload: payload ?? jsonRequest([input([[1, 2, 3, 4]])]),
    });
    assert.equal(res.statusCode, status, `${url}: ${res.body}`);
    assert.match(res.headers['content-type'] as string, /application\/json/);
    const body = JSON.parse(res.body);
    assert.deepEqual(Object.keys(body), ['error']);
    assert.ok(body.error.includes(message), `"${body.error}" lacks "${message}"`);
    await a.close();
  }
});

test("a body over the limit is refused with Triton's 400 and words (JSON, raw binary) and the server keeps serving", async () => {
  const { manager } = fakeManager();
  const a = await app(manager, 1024);
  const payload = JSON.stringify({ inputs: [{ name: 'IN', datatype: 'FP32', shape: [1, 4], data: new Array(2000).fill(1) }] });
  const big = await a.inject({ method: 'POST', url: '/v2/models/doubler/infer', headers: { 'content-type': 'application/json' }, payload });
  assert.equal(big.statusCode, 400);
  assert.deepEqual(JSON.parse(big.body), {
    error: `request JSON size of ${payload.length} bytes exceeds the maximum allowed input size of 1024 bytes. Use --http-max-input-size to increase the limit.`,
  });
  const raw = await a.inject({ method: 'POST', url: '/v2/models/doubler/infer', headers: { 'inference-header-content-length': '0' }, payload: Buffer.alloc(4000) });
  assert.equal(raw.statusCode, 400);
  assert.deepEqual(JSON.parse(raw.body), {
    error: 'Raw input has a byte_size (4000 bytes) that exceeds the maximum allowed value of 1024 bytes. Use --http-max-input-size to increase the limit.',
  });
  const ok = await a.inject({
    method: 'POST',
    url: '/v2/models/doubler/infer',
    headers: { 'content-type': 'application/json' },
    payload: jsonRequest([input([[1, 2, 3, 4]])]),
  });
  assert.equal(ok.statusCode, 200);
  await a.close();
});

test('other routes keep fastify JSON parsing (the raw parser is scoped to infer)', async () => {
  const { manager } = fakeManager();
  const a = Fastify();
  registerInferRoutes(a, manager);
  a.post('/echo', async (req) => ({ got: req.body }));
  await a.ready();
  const res = await a.inject({ method: 'POST', url: '/echo', payload: { a: 1 } });
  assert.deepEqual(JSON.parse(res.body), { got: { a: 1 } });
  await a.close();
});

test('the infer body limit is independent of the app-wide limit (bodies above fastify\'s 1 MiB default pass)', async () => {
  const { manager } = fakeManager();
  const a = await app(manager); // default 64 MiB
  const rows = Array.from({ length: 8 }, () => [1, 2, 3, 4]);
  const { body, headerLength } = binaryRequest([input(rows)]);
  const padded = JSON.stringify({ pad: 'x'.repeat(2 * 1024 * 1024) });
  // A big but valid JSON header: 2 MiB of ignored parameters.
  const hdr = JSON.parse(body.subarray(0, headerLength).toString());
  hdr.parameters = { note: padded };
  const h = Buffer.from(JSON.stringify(hdr));
  const res = await a.inject({
    method: 'POST',
    url: '/v2/models/doubler/infer',
    headers: { 'content-type': 'application/octet-stream', 'inference-header-content-length': String(h.length) },
    payload: Buffer.concat([h, body.subarray(headerLength)]),
  });
  assert.equal(res.statusCode, 200, res.body.slice(0, 200));
  await a.close();
});

test('gzip and deflate request bodies are accepted (header length counts decompressed bytes); bombs are refused', async () => {
  const { gzipSync, deflateSync } = await import('node:zlib');
  const { manager } = fakeManager();
  const a = await app(manager, 64 * 1024);
  const { body, headerLength } = binaryRequest([input([[1, 2, 3, 4]])]);
  for (const [enc, pack] of [['gzip', gzipSync], ['deflate', deflateSync]] as const) {
    const res = await a.inject({
      method: 'POST',
      url: '/v2/models/doubler/infer',
      headers: { 'content-encoding': enc, 'inference-header-content-length': String(headerLength) },
      payload: pack(body),
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(JSON.parse(res.body).outputs[0].data, [2, 4, 6, 8]);
  }
  const bomb = await a.inject({ method: 'POST', url: '/v2/models/doubler/infer', headers: { 'content-encoding': 'gzip' }, payload: gzipSync(Buffer.alloc(1 << 20)) });
  assert.equal(bomb.statusCode, 400);
  assert.deepEqual(JSON.parse(bomb.body), {
    error: 'Decompressed data size exceeds the maximum allowed value of 65536 bytes. Use --http-max-input-size to increase the limit.',
  });
  const garbage = await a.inject({ method: 'POST', url: '/v2/models/doubler/infer', headers: { 'content-encoding': 'gzip' }, payload: Buffer.from('not gzip') });
  assert.equal(garbage.statusCode, 400);
  assert.match(JSON.parse(garbage.body).error, /unable to decompress the gzip request body/);
  // Triton: UNSUPPORTED -> 501 "Unsupported compression type", naming what it takes in Accept-Encoding.
  const br = await a.inject({ method: 'POST', url: '/v2/models/doubler/infer', headers: { 'content-encoding': 'br' }, payload: Buffer.from('x') });
  assert.equal(br.statusCode, 501);
  assert.deepEqual(JSON.parse(br.body), { error: 'Unsupported compression type' });
  assert.equal(br.headers['accept-encoding'], 'gzip, deflate');
  await a.close();
});

test('codec refusals for a known model are published as request.rejected (invalid)', async () => {
  const { EventBus } = await import('@inferscope/core');
  const bus = new EventBus();
  const seen: any[] = [];
  bus.on((e) => seen.push(e));
  const a = Fastify();
  registerInferRoutes(a, fakeManager().manager, { events: { bus, now: () => 42 } });
  await a.ready();
  const bad = await a.inject({ method: 'POST', url: '/v2/models/doubler/infer', payload: '{"inputs":[]}' });
  assert.equal(bad.statusCode, 400);
  const unknown = await a.inject({ method: 'POST', url: '/v2/models/nope/infer', payload: '{"inputs":[]}' });
  assert.equal(unknown.statusCode, 404);
  const ok = await a.inject({ method: 'POST', url: '/v2/models/doubler/infer', payload: jsonRequest([input([[1, 2, 3, 4]])]) });
  assert.equal(ok.statusCode, 200);
  assert.equal(seen.length, 1); // only the invalid request for a known model
  assert.equal(seen[0].type, 'request.rejected');
  assert.equal(seen[0].reason, 'invalid');
  assert.equal(seen[0].model, 'doubler');
  assert.equal(seen[0].version, '1');
  assert.equal(seen[0].t, 42);
  assert.match(seen[0].message, /expected 1 inputs but got 0/);
  await a.close();
});

test('responses are compressed when the client accepts gzip or deflate (header length stays uncompressed)', async () => {
  const { gunzipSync, inflateSync } = await import('node:zlib');
  const { responseEncoding } = await import('../../apps/server/src/http/kserve-routes');
  assert.equal(responseEncoding(undefined), 'identity');
  assert.equal(responseEncoding('gzip, deflate'), 'gzip');
  assert.equal(responseEncoding('deflate;q=0.9, gzip;q=0.5'), 'deflate');
  assert.equal(responseEncoding('br'), 'identity');
  assert.equal(responseEncoding('gzip;q=0'), 'identity');
  const { manager } = fakeManager();
  const small = await app(manager);
  const tiny = await small.inject({ method: 'POST', url: '/v2/models/doubler/infer', headers: { 'accept-encoding': 'gzip' }, payload: jsonRequest([input([[1, 2, 3, 4]])]) });
  assert.equal(tiny.headers['content-encoding'], undefined); // below the threshold: not worth compressing
  await small.close();
  const a = await app(manager, undefined, 0);
  const { body, headerLength } = binaryRequest([input([[1, 2, 3, 4]])], { binaryOutput: true });
  for (const [enc, unpack] of [['gzip', gunzipSync], ['deflate', inflateSync]] as const) {
    const res = await a.inject({
      method: 'POST',
      url: '/v2/models/doubler/infer',
      headers: { 'inference-header-content-length': String(headerLength), 'accept-encoding': enc },
      payload: body,
    });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-encoding'], enc);
    const plain = unpack(res.rawPayload);
    const parsed = parseResponse(plain, Number(res.headers['inference-header-content-length']));
    assert.deepEqual(parsed.outputs[0].values, [2, 4, 6, 8]);
  }
  await a.close();
});
