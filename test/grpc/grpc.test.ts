// The real server (buildApp, demo models copied to a temp repository, explicit mode) with its gRPC endpoint
// on port 0, driven by a real grpc-js client built from the same .proto files, next to an HTTP client on
// the same server: every RPC, the same models, outputs, errors and statistics over both protocols, bad
// input with Triton's status codes, an oversized message, streaming, client cancellation, and the
// protocol stamped on the live events.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { status } from '@grpc/grpc-js';
import type { SchedulerEvent } from '@inferscope/core';
import { startTestServer, tempRepository, type TestServer } from '../support/server';
import { grpcClient, fp32FromRaw, rawFp32, type TestGrpcClient } from './client';
import { binaryRequest, parseResponse } from '../kserve/wire';

const BODY_LIMIT = 256 * 1024;
let server: TestServer;
let client: TestGrpcClient;
let repo: { dir: string; remove(): Promise<void> };

before(async () => {
  repo = await tempRepository(['mlp_classifier', 'text_encoder']);
  // mlp_slow: the same model holding a request in its queue for 30 s (nothing reaches a preferred size
  // of 64), so a cancellation finds it queued
  await cp(join(repo.dir, 'mlp_classifier'), join(repo.dir, 'mlp_slow'), { recursive: true });
  const cfg = await readFile(join(repo.dir, 'mlp_slow', 'config.pbtxt'), 'utf8');
  await writeFile(join(repo.dir, 'mlp_slow', 'config.pbtxt'), cfg
    .replace('name: "mlp_classifier"', 'name: "mlp_slow"')
    .replace('preferred_batch_size: [ 8, 16, 32 ]', 'preferred_batch_size: [ 64 ]')
    .replace('max_queue_delay_microseconds: 2000', 'max_queue_delay_microseconds: 30000000'));
  server = await startTestServer({
    modelRepositories: [repo.dir], modelControlMode: 'explicit', loadModels: ['*'], grpcPort: 0, inferBodyLimit: BODY_LIMIT, live: false,
  });
  assert.ok(server.grpcAddress, 'the gRPC endpoint listens');
  client = grpcClient(server.grpcAddress!);
});

after(async () => {
  client?.close();
  await server?.close();
  await repo?.remove();
});

const http = (path: string, init?: RequestInit) => fetch(server.url + path, init);
const seeded = (n: number, seed: number) => {
  let s = seed >>> 0;
  return Float32Array.from({ length: n }, () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32));
};
const mlpRaw = (data: Float32Array, batch: number, extra: object = {}) => ({
  model_name: 'mlp_classifier', model_version: '1',
  inputs: [{ name: 'input', datatype: 'FP32', shape: [batch, 784] }],
  raw_input_contents: [rawFp32(data)],
  ...extra,
});

async function grpcFails(method: string, req: object): Promise<{ code: number; details: string }> {
  try {
    await client.call(method, req);
  } catch (err) {
    return err as { code: number; details: string };
  }
  throw new Error(`${method} succeeded`);
}

/** The id of the next request.queued event that matches. */
function nextQueued(match: (e: SchedulerEvent & { type: 'request.queued' }) => boolean): Promise<string> {
  return new Promise((resolve) => {
    const off = server.built.bus.on((e) => {
      if (e.type === 'request.queued' && match(e)) {
        off();
        resolve(e.request_id);
      }
    });
  });
}

/** Resolves once `done()` holds, checked every 20 ms (conditions on the events the harness keeps). */
function until(done: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const check = () => (done() ? resolve() : void setTimeout(check, 20));
    check();
  });
}

/** Resolves once every request queued so far on the bus has its one terminal event. */
function settled(events: SchedulerEvent[]): boolean {
  const open = new Set<string>();
  for (const e of events) {
    if (e.type === 'request.queued') open.add(e.request_id);
    else if ((e.type === 'request.completed' || e.type === 'request.rejected') && open.has(e.request_id)) open.delete(e.request_id);
  }
  return open.size === 0;
}

test('server and model metadata RPCs answer what the HTTP routes answer', async () => {
  assert.deepEqual(await client.call('ServerLive'), { live: true });
  assert.deepEqual(await client.call('ServerReady'), { ready: true });
  const meta = await client.call('ServerMetadata');
  const httpMeta = await (await http('/v2')).json();
  assert.deepEqual({ name: meta.name, version: meta.version, extensions: meta.extensions }, httpMeta);
  assert.ok(meta.extensions.includes('classification'));

  const mm = await client.call('ModelMetadata', { name: 'mlp_classifier' });
  const httpMm = await (await http('/v2/models/mlp_classifier')).json();
  const numbers = (t: { name: string; datatype: string; shape: string[] }) => ({ name: t.name, datatype: t.datatype, shape: t.shape.map(Number) });
  assert.deepEqual({ name: mm.name, versions: mm.versions, platform: mm.platform, inputs: mm.inputs.map(numbers), outputs: mm.outputs.map(numbers) }, httpMm);

  const { config } = await client.call('ModelConfig', { name: 'mlp_classifier', version: '2' });
  const httpConfig = await (await http('/v2/models/mlp_classifier/versions/2/config')).json();
  assert.equal(config.name, httpConfig.name);
  assert.equal(config.max_batch_size, httpConfig.max_batch_size);
  assert.deepEqual(config.input.map((i: { name: string; data_type: string; dims: string[] }) => [i.name, i.data_type, i.dims.map(Number)]),
    httpConfig.input.map((i: { name: string; data_type: string; dims: number[] }) => [i.name, i.data_type, i.dims.map(Number)]));
  assert.deepEqual(config.dynamic_batching.preferred_batch_size, httpConfig.dynamic_batching.preferred_batch_size);
  assert.equal(config.instance_group[0].kind, httpConfig.instance_group[0].kind);
  assert.equal(config.scheduling_choice, 'dynamic_batching');

  assert.deepEqual(await client.call('ModelReady', { name: 'mlp_classifier', version: '1' }), { ready: true });
  const unknown = await grpcFails('ModelReady', { name: 'nope' });
  assert.equal(unknown.code, status.NOT_FOUND);
  assert.equal(unknown.details, (await (await http('/v2/models/nope/ready')).json()).error);
  const badVersion = await grpcFails('ModelMetadata', { name: 'mlp_classifier', version: 'abc' });
  assert.equal(badVersion.code, status.INVALID_ARGUMENT);

  const index = await client.call('RepositoryIndex', { ready: true });
  const httpIndex = await (await http('/v2/repository/index', { method: 'POST', body: '{"ready": true}' })).json();
  assert.deepEqual(index.models.map((m: { name: string; version: string; state: string }) => [m.name, m.version, m.state]),
    httpIndex.map((m: { name: string; version: string; state: string }) => [m.name, m.version, m.state]));
});

test('ModelInfer: raw and typed contents give the outputs HTTP gives; id, classification, INT64', async () => {
  const data = seeded(3 * 784, 11);
  const res = await client.call('ModelInfer', mlpRaw(data, 3, { id: 'g-1' }));
  assert.equal(res.id, 'g-1');
  assert.equal(res.model_version, '1');
  assert.deepEqual(res.outputs.map((o: { name: string; datatype: string; shape: string[] }) => [o.name, o.datatype, o.shape.map(Number)]), [['probabilities', 'FP32', [3, 10]]]);
  const viaGrpc = fp32FromRaw(res.raw_output_contents[0]);

  const b = binaryRequest([{ name: 'input', datatype: 'FP32', shape: [3, 784], data }], { binaryOutput: true });
  const r = await http('/v2/models/mlp_classifier/versions/1/infer', { method: 'POST', headers: { 'inference-header-content-length': String(b.headerLength) }, body: new Uint8Array(b.body) });
  const viaHttp = parseResponse(Buffer.from(await r.arrayBuffer()), Number(r.headers.get('inference-header-content-length'))).outputs[0].values;
  assert.deepEqual(Array.from(viaGrpc), viaHttp, 'identical outputs over gRPC and HTTP');

  const typed = await client.call('ModelInfer', {
    model_name: 'mlp_classifier', model_version: '1',
    inputs: [{ name: 'input', datatype: 'FP32', shape: [3, 784], contents: { fp32_contents: Array.from(data) } }],
  });
  assert.deepEqual(Array.from(fp32FromRaw(typed.raw_output_contents[0])), viaHttp, 'typed contents, same answer');

  const cls = await client.call('ModelInfer', mlpRaw(data, 3, { outputs: [{ name: 'probabilities', parameters: { classification: { int64_param: 2 } } }] }));
  assert.equal(cls.outputs[0].datatype, 'BYTES');
  assert.deepEqual(cls.outputs[0].shape.map(Number), [3, 2]);
  const raw = cls.raw_output_contents[0] as Buffer;
  const first = raw.subarray(4, 4 + raw.readUInt32LE(0)).toString();
  const row0 = (viaHttp as number[]).slice(0, 10);
  const top = row0.indexOf(Math.max(...row0));
  assert.equal(first, `${row0[top].toFixed(6)}:${top}`);

  const ids = await client.call('ModelInfer', {
    model_name: 'text_encoder',
    inputs: [{ name: 'token_ids', datatype: 'INT64', shape: [2, 3], contents: { int64_contents: ['1', '2', '3', '2047', '5', '6'] } }],
  });
  assert.deepEqual(ids.outputs[0].shape.map(Number), [2, 64]);
  // 64-bit values arrive exact (2^53 + 1 is not a double): the model's own range error quotes it.
  const exact = await grpcFails('ModelInfer', {
    model_name: 'text_encoder',
    inputs: [{ name: 'token_ids', datatype: 'INT64', shape: [1, 1], contents: { int64_contents: ['9007199254740993'] } }],
  });
  assert.equal(exact.code, status.INTERNAL, 'a backend failure');
  assert.match(exact.details, /9007199254740993/);
});

test('bad input: Triton gRPC status codes, the same messages as HTTP, and the server keeps serving', async () => {
  const data = seeded(784, 3);
  const cases: Array<[string, object, number]> = [
    ['unknown model', { ...mlpRaw(data, 1), model_name: 'nope', model_version: '' }, status.NOT_FOUND],
    ['unknown version', { ...mlpRaw(data, 1), model_version: '9' }, status.NOT_FOUND],
    ['wrong datatype', { ...mlpRaw(data, 1), inputs: [{ name: 'input', datatype: 'INT32', shape: [1, 784] }] }, status.INVALID_ARGUMENT],
    ['wrong shape', { ...mlpRaw(data, 1), inputs: [{ name: 'input', datatype: 'FP32', shape: [1, 783] }] }, status.INVALID_ARGUMENT],
    ['too few bytes', { ...mlpRaw(data.subarray(0, 700), 1) }, status.INVALID_ARGUMENT],
    ['unknown input', { ...mlpRaw(data, 1), inputs: [{ name: 'x', datatype: 'FP32', shape: [1, 784] }] }, status.INVALID_ARGUMENT],
    ['unknown output', { ...mlpRaw(data, 1), outputs: [{ name: 'nope' }] }, status.INVALID_ARGUMENT],
    ['duplicate output', { ...mlpRaw(data, 1), outputs: [{ name: 'probabilities' }, { name: 'probabilities' }] }, status.INVALID_ARGUMENT],
    ['no data', { ...mlpRaw(data, 1), raw_input_contents: [] }, status.INVALID_ARGUMENT],
    ['raw and typed', { ...mlpRaw(data, 1), inputs: [{ name: 'input', datatype: 'FP32', shape: [1, 784], contents: { fp32_contents: [1] } }] }, status.INVALID_ARGUMENT],
    ['typed of the wrong type', { model_name: 'mlp_classifier', inputs: [{ name: 'input', datatype: 'FP32', shape: [1, 784], contents: { int_contents: [1] } }] }, status.INVALID_ARGUMENT],
    ['non-boolean sequence_start', { ...mlpRaw(data, 1), parameters: { sequence_start: { int64_param: 1 } } }, status.INVALID_ARGUMENT],
    ['bad classification', { ...mlpRaw(data, 1), outputs: [{ name: 'probabilities', parameters: { classification: { string_param: 'x' } } }] }, status.INVALID_ARGUMENT],
  ];
  for (const [what, req, code] of cases) {
    const err = await grpcFails('ModelInfer', req);
    assert.equal(err.code, code, `${what}: ${err.details}`);
    assert.ok(err.details.length > 0, what);
  }
  // The same refusal over HTTP carries the same words.
  const wrongType = await grpcFails('ModelInfer', { ...mlpRaw(data, 1), inputs: [{ name: 'input', datatype: 'INT32', shape: [1, 784] }] });
  const httpWrong = await http('/v2/models/mlp_classifier/versions/1/infer', { method: 'POST', body: JSON.stringify({ inputs: [{ name: 'input', datatype: 'INT32', shape: [1, 784], data: new Array(784).fill(0) }] }) });
  assert.equal(httpWrong.status, 400);
  assert.equal((await httpWrong.json()).error, wrongType.details);
  const unknownModel = await grpcFails('ModelInfer', { ...mlpRaw(data, 1), model_name: 'nope', model_version: '' });
  assert.equal((await (await http('/v2/models/nope/infer', { method: 'POST', body: '{}' })).json()).error, unknownModel.details);

  // A message over the limit is refused before it is decoded (RESOURCE_EXHAUSTED), and nothing breaks.
  const big = seeded(100 * 784, 5); // 313,600 bytes > 256 KiB
  const tooBig = await grpcFails('ModelInfer', mlpRaw(big, 100));
  assert.equal(tooBig.code, status.RESOURCE_EXHAUSTED);
  const ok = await client.call('ModelInfer', mlpRaw(data, 1));
  assert.equal(ok.raw_output_contents[0].byteLength, 40);
});

test('statistics: gRPC and HTTP requests count alike and both protocols report the same figures', async () => {
  const before = (await client.call('ModelStatistics', { name: 'text_encoder', version: '1' })).model_stats[0];
  const ids = { name: 'token_ids', datatype: 'INT64', shape: [1, 4] };
  for (let i = 0; i < 3; i++) await client.call('ModelInfer', { model_name: 'text_encoder', inputs: [{ ...ids, contents: { int64_contents: ['1', '2', '3', String(i)] } }] });
  for (let i = 0; i < 2; i++) {
    const r = await http('/v2/models/text_encoder/infer', { method: 'POST', body: JSON.stringify({ inputs: [{ ...ids, data: [1, 2, 3, i] }] }) });
    assert.equal(r.status, 200);
  }
  await grpcFails('ModelInfer', { model_name: 'text_encoder', inputs: [{ ...ids, datatype: 'FP32', contents: { fp32_contents: [1, 2, 3, 4] } }] });
  const g = (await client.call('ModelStatistics', { name: 'text_encoder', version: '1' })).model_stats[0];
  const h = (await (await http('/v2/models/text_encoder/versions/1/stats')).json()).model_stats[0];
  assert.equal(Number(g.inference_stats.success.count) - Number(before.inference_stats.success.count), 5);
  assert.equal(Number(g.inference_stats.fail.count), Number(before.inference_stats.fail.count), 'an invalid request is not a failure (Triton)');
  for (const key of ['success', 'fail', 'queue', 'compute_infer'] as const) {
    assert.equal(String(h.inference_stats[key].count), g.inference_stats[key].count, key);
    assert.equal(String(h.inference_stats[key].ns), g.inference_stats[key].ns, key);
    assert.match(g.inference_stats[key].ns, /^\d+$/, 'uint64 nanoseconds');
  }
  assert.equal(String(h.inference_count), g.inference_count);
  assert.equal(String(h.execution_count), g.execution_count);
  const all = await client.call('ModelStatistics', {});
  assert.deepEqual(all.model_stats.map((m: { name: string; version: string }) => `${m.name}/${m.version}`), ['mlp_classifier/1', 'mlp_classifier/2', 'mlp_slow/1', 'mlp_slow/2', 'text_encoder/1']);
  const unknown = await grpcFails('ModelStatistics', { name: 'nope' });
  assert.equal(unknown.code, status.INVALID_ARGUMENT);
});

test('ModelStreamInfer: one response per request, errors in error_message, the stream ends after the last', async () => {
  const stream = client.raw.ModelStreamInfer();
  const responses: Array<{ error_message: string; infer_response: { id: string } }> = [];
  const done = new Promise<void>((resolve, reject) => {
    stream.on('data', (r: (typeof responses)[number]) => responses.push(r));
    stream.on('end', resolve);
    stream.on('error', reject);
  });
  const data = seeded(784, 9);
  for (let i = 0; i < 4; i++) stream.write(mlpRaw(data, 1, { id: `s${i}` }));
  stream.write({ ...mlpRaw(data, 1, { id: 'bad' }), inputs: [{ name: 'input', datatype: 'FP32', shape: [1, 10] }] });
  stream.end();
  await done;
  assert.equal(responses.length, 5);
  assert.deepEqual(responses.filter((r) => r.error_message === '').map((r) => r.infer_response.id).sort(), ['s0', 's1', 's2', 's3']);
  const bad = responses.find((r) => r.error_message !== '')!;
  assert.equal(bad.infer_response.id, 'bad');
  assert.match(bad.error_message, /unexpected shape for input 'input'/);
});

test('client cancellation: cancelled calls end CANCELLED, every queued request still gets one terminal event, serving goes on', async () => {
  const data = seeded(8 * 784, 21);
  const first = server.events.length;
  const outcomes = Array.from({ length: 16 }, () => new Promise<number>((resolve) => {
    const call = client.raw.ModelInfer(mlpRaw(data, 8), (err: { code: number } | null) => resolve(err ? err.code : status.OK));
    setImmediate(() => call.cancel());
  }));
  const codes = await Promise.all(outcomes);
  assert.ok(codes.every((c) => c === status.CANCELLED || c === status.OK), `codes ${codes}`);
  assert.ok(codes.includes(status.CANCELLED));
  // Requests the scheduler accepted run to completion; each has exactly one terminal event.
  await until(() => settled(server.events.slice(first)));
  const later = server.events.slice(first);
  const terminal = later.filter((e) => (e.type === 'request.completed' || e.type === 'request.rejected') && e.model === 'mlp_classifier');
  const queued = later.filter((e) => e.type === 'request.queued');
  assert.equal(new Set(terminal.map((e) => (e as { request_id: string }).request_id)).size, terminal.length, 'no request answered twice');
  assert.ok(queued.length <= 16);

  // Cancelled once queued: the client sees CANCELLED at once; the server either takes the request out of
  // the queue (request.rejected, cancelled) or, if a batch already holds it, completes it and drops the
  // answer: exactly one terminal event either way.
  const mark = server.events.length;
  const queuedNow = nextQueued((e) => e.protocol === 'grpc');
  const cancelledCode = new Promise<number>((resolve) => {
    const call = client.raw.ModelInfer(mlpRaw(data, 8), (err: { code: number } | null) => resolve(err ? err.code : status.OK));
    void queuedNow.then(() => call.cancel());
  });
  const id = await queuedNow;
  assert.equal(await cancelledCode, status.CANCELLED);
  const terminalOf = () => server.events.slice(mark).filter((e) => (e.type === 'request.completed' || e.type === 'request.rejected') && e.request_id === id);
  await until(() => terminalOf().length > 0);
  const [end] = terminalOf();
  assert.ok(end.type === 'request.completed' || (end.type === 'request.rejected' && end.reason === 'cancelled'), JSON.stringify(end));
  const ok = await client.call('ModelInfer', mlpRaw(data.subarray(0, 784), 1));
  assert.equal(ok.raw_output_contents.length, 1);
});

test('a cancelled call whose request waits in the queue is taken out of it (request.rejected, cancelled)', async () => {
  const mark = server.events.length;
  const queuedNow = nextQueued((e) => e.model === 'mlp_slow');
  const code = new Promise<number>((resolve) => {
    const call = client.raw.ModelInfer({ ...mlpRaw(seeded(784, 4), 1), model_name: 'mlp_slow', model_version: '' }, (err: { code: number } | null) => resolve(err ? err.code : status.OK));
    void queuedNow.then(() => call.cancel());
  });
  const id = await queuedNow;
  assert.equal(await code, status.CANCELLED);
  await until(() => server.events.slice(mark).some((e) => e.type === 'request.rejected' && e.request_id === id));
  const ends = server.events.slice(mark).filter((e) => (e.type === 'request.rejected' || e.type === 'request.completed') && e.request_id === id);
  assert.equal(ends.length, 1);
  assert.equal((ends[0] as { reason?: string }).reason, 'cancelled');
});

test('live events say which protocol a request came in on', async () => {
  const first = server.events.length;
  const data = seeded(784, 1);
  await client.call('ModelInfer', mlpRaw(data, 1));
  const b = binaryRequest([{ name: 'input', datatype: 'FP32', shape: [1, 784], data }]);
  await http('/v2/models/mlp_classifier/versions/1/infer', { method: 'POST', headers: { 'inference-header-content-length': String(b.headerLength) }, body: new Uint8Array(b.body) });
  await grpcFails('ModelInfer', { ...mlpRaw(data, 1), inputs: [{ name: 'input', datatype: 'INT8', shape: [1, 784] }] });
  const later = server.events.slice(first);
  assert.deepEqual(later.filter((e) => e.type === 'request.queued').map((e) => (e as { protocol?: string }).protocol), ['grpc', 'http']);
  const refused = later.find((e) => e.type === 'request.rejected') as { protocol?: string; reason: string };
  assert.equal(refused.reason, 'invalid');
  assert.equal(refused.protocol, 'grpc');
});

test('repository RPCs: unload and load as over HTTP; statistics restart after a reload', async () => {
  await client.call('ModelInfer', { model_name: 'text_encoder', inputs: [{ name: 'token_ids', datatype: 'INT64', shape: [1, 2], contents: { int64_contents: ['1', '2'] } }] });
  assert.deepEqual(await client.call('RepositoryModelUnload', { model_name: 'text_encoder' }), {});
  assert.equal((await grpcFails('ModelReady', { name: 'text_encoder' })).code, status.NOT_FOUND);
  assert.equal((await http('/v2/models/text_encoder/ready')).status, 404);
  assert.equal((await grpcFails('ModelStatistics', { name: 'text_encoder' })).code, status.INVALID_ARGUMENT);
  assert.equal((await grpcFails('ModelInfer', { model_name: 'text_encoder', inputs: [] })).code, status.NOT_FOUND);
  assert.deepEqual(await client.call('RepositoryModelUnload', { model_name: 'never_there' }), {}, 'unloading what is not loaded succeeds (Triton)');
  assert.equal((await http('/v2/repository/models/never_there/unload', { method: 'POST' })).status, 200);
  const unknownLoad = await grpcFails('RepositoryModelLoad', { model_name: 'never_there' });
  assert.equal(unknownLoad.code, status.INTERNAL);
  assert.match(unknownLoad.details, /failed to poll from model repository/);
  assert.equal((await grpcFails('RepositoryModelLoad', { model_name: 'text_encoder', repository_name: 'elsewhere' })).code, status.UNIMPLEMENTED);

  assert.deepEqual(await client.call('RepositoryModelLoad', { model_name: 'text_encoder' }), {});
  assert.deepEqual(await client.call('ModelReady', { name: 'text_encoder' }), { ready: true });
  const fresh = (await client.call('ModelStatistics', { name: 'text_encoder' })).model_stats[0];
  assert.equal(fresh.inference_stats.success.count, '0', 'a reloaded model starts from zero');
});
