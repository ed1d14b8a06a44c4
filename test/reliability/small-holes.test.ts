/**
 * The smaller holes of issue 13 (item 8), each refused or reported instead of crashing, echoing or
 * losing silently: deep JSON (HTTP and control), huge values echoed in errors, unknown fields named like
 * Object.prototype members in scenarios, long model names (414), recordings that cannot be written,
 * recordings started in one burst sharing a file.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, ROOT, MiB, type Running } from './harness.ts';
import { validateScenario } from '@inferscope/core/load';
import { validateControlMessage } from '@inferscope/core/live';
import { depthExceeds, MAX_JSON_DEPTH } from '@inferscope/core/util';
import { MAX_MESSAGE_CHARS } from '../../apps/server/src/infer/redact-paths.ts';
import { connectLive, control } from './live-client.ts';

let server: Running;
before(async () => {
  server = await startServer({ controlMode: 'explicit', loadModels: ['mlp_classifier', 'text_encoder'] });
});
after(() => server?.close());

const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);

test('JSON nested deeper than 100 is a 400 with Triton\'s message, on infer and on the other routes', { timeout: 60_000 }, async () => {
  for (const depth of [101, 10_000, 200_000]) {
    const bodies = [
      { url: '/v2/models/mlp_classifier/infer', payload: `{"inputs":[{"name":"input","datatype":"FP32","shape":[1,784],"data":${deep(depth)}}]}` },
      { url: '/v2/models/mlp_classifier/infer', payload: `{"inputs":[],"parameters":{"a":${deep(depth)}}}` },
      { url: '/v2/trace/setting', payload: `{"trace_level":${deep(depth)}}` },
    ];
    for (const b of bodies) {
      const res = await server.app.inject({ method: 'POST', url: b.url, payload: b.payload, headers: { 'content-type': 'application/json' } });
      assert.equal(res.statusCode, 400, `${b.url} depth ${depth}: ${res.statusCode} ${res.body.slice(0, 200)}`);
      assert.match(res.json().error, /JSON nesting depth exceeds maximum allowed limit \(100\)/);
    }
    // the index reads 'ready' by its type and walks nothing: Triton's answer is about 'ready' (qa/L0_http)
    const index = await server.app.inject({ method: 'POST', url: '/v2/repository/index', payload: `{"ready":${deep(depth)}}`, headers: { 'content-type': 'application/json' } });
    assert.deepEqual([index.statusCode, index.json()], [400, { error: "Invalid value for 'ready': expected a boolean" }]);
  }
  // 100 levels are fine (refused for their content, not their depth)
  const ok = await server.app.inject({ method: 'POST', url: '/v2/repository/index', payload: `{"ready":${deep(99)}}`, headers: { 'content-type': 'application/json' } });
  assert.doesNotMatch(ok.body, /nesting depth/);
});

test('the depth guard skips only texts too short to nest past the limit (two brackets a level)', async () => {
  const tight = deep(MAX_JSON_DEPTH + 1); // the shortest text one level too deep: 202 characters
  assert.equal(depthExceeds(JSON.parse(tight), MAX_JSON_DEPTH, tight.length), true);
  assert.equal(depthExceeds(JSON.parse(deep(MAX_JSON_DEPTH)), MAX_JSON_DEPTH, 2 * MAX_JSON_DEPTH), false);
  // the same shortest text as a binary-extension header, where the parser passes the header's length
  const header = Buffer.from(tight);
  const res = await server.app.inject({
    method: 'POST', url: '/v2/models/mlp_classifier/infer', payload: header,
    headers: { 'content-type': 'application/octet-stream', 'inference-header-content-length': String(header.byteLength) },
  });
  assert.equal(res.statusCode, 400, res.body);
  assert.match(res.json().error, /JSON nesting depth exceeds maximum allowed/);
});

test('deeply nested control messages are refused with the same message', () => {
  let v: unknown = 1;
  for (let i = 0; i < 10_000; i++) v = [v];
  const r = validateControlMessage({ action: 'setDynamicBatching', model: 'm', preferred_batch_size: v });
  assert.equal(r.ok, false);
  assert.match((r as { error: string }).error, /JSON nesting depth exceeds maximum allowed/);
});

test('a 20 MiB value is not echoed back: error messages are capped', { timeout: 60_000 }, async () => {
  const huge = 'x'.repeat(20 * MiB);
  const cases = [
    { url: '/v2/models/mlp_classifier/infer', payload: JSON.stringify({ inputs: [{ name: huge, datatype: 'FP32', shape: [1, 784], data: new Array(784).fill(0) }] }) },
    { url: '/v2/models/mlp_classifier/infer', payload: JSON.stringify({ inputs: [{ name: 'input', datatype: huge, shape: [1, 784], data: [] }] }) },
    { url: '/v2/models/text_encoder/infer', payload: JSON.stringify({ inputs: [{ name: 'token_ids', datatype: 'INT64', shape: [1, 1], data: [huge] }] }) },
    { url: `/v2/models/mlp_classifier/infer`, payload: JSON.stringify({ id: 5, x: huge }) },
  ];
  for (const c of cases) {
    const res = await server.app.inject({ method: 'POST', url: c.url, payload: c.payload, headers: { 'content-type': 'application/json' } });
    assert.ok(res.statusCode >= 400 && res.statusCode < 500, `${res.statusCode}`);
    assert.ok(res.body.length < MAX_MESSAGE_CHARS + 200, `error body of ${res.body.length} bytes`);
  }
  const { socket } = await connectLive(server.url);
  const ack = await control(socket, { action: 'setDynamicBatching', model: 'mlp_classifier', [('f' + 'x'.repeat(60_000))]: 1 });
  assert.equal(ack.ok, false);
  assert.ok((ack as { error: string }).error.length < MAX_MESSAGE_CHARS + 100);
  socket.close();
});

test('scenario validation is strict at every level, prototype names included', () => {
  const base = { name: 's', phases: [{ type: 'constant', duration_s: 1, rate: 1 }] };
  assert.doesNotThrow(() => validateScenario(base));
  const bad: unknown[] = [
    { ...base, phases: [{ type: 'constant', duration_s: 1, rate: 1, constructor: 1 }] },
    { ...base, phases: [{ type: 'constant', duration_s: 1, rate: 1, __proto__: { rate: 2 }, toString: 'x' }] },
    { ...base, phases: [{ type: 'constructor', duration_s: 1 }] },
    { ...base, phases: [{ type: 'hasOwnProperty' }] },
    { ...base, models: [{ value: 'm', weight: 1, extra: true }] },
    { ...base, shapes: { type: 'fixed', dims: [1], evil: 1 } },
    { ...base, shapes: { type: 'length', length: { type: 'uniform', min: 1, max: 2, valueOf: 3 } } },
    { ...base, phases: [{ type: 'replay', duration_s: 1, arrivals: [{ t_us: 0, batch_size: 1, constructor: 'x' }] }] },
    JSON.parse('{"name":"s","phases":[{"type":"constant","duration_s":1,"rate":1,"__proto__":{"x":1}}]}'),
  ];
  for (const s of bad) assert.throws(() => validateScenario(s), /unknown field|must be one of/, JSON.stringify(s));
});

test('model names up to 255 characters reach the model lookup (no 414)', { timeout: 30_000 }, async () => {
  for (const n of [120, 255]) {
    const name = 'm'.repeat(n);
    const res = await server.app.inject({ method: 'POST', url: `/v2/models/${name}/infer`, payload: { inputs: [] } });
    assert.notEqual(res.statusCode, 414, `${n} characters`);
    assert.ok(res.statusCode === 400 || res.statusCode === 404, `${res.statusCode} ${res.body.slice(0, 200)}`);
    const ready = await server.app.inject({ method: 'GET', url: `/v2/models/${name}/versions/1/ready` });
    assert.notEqual(ready.statusCode, 414);
  }
});

test('four startRecording in one burst get four files', { timeout: 30_000 }, async () => {
  const { socket } = await connectLive(server.url);
  const acks = await Promise.all([0, 1, 2, 3].map(() => control(socket, { action: 'startRecording', models: ['mlp_classifier'] })));
  const names = acks.map((a) => (a as { recording?: string }).recording);
  assert.ok(acks.every((a) => a.ok), JSON.stringify(acks));
  assert.equal(new Set(names).size, 4, `names ${names}`);
  const stop = await control(socket, { action: 'stopRecording' });
  assert.equal(stop.ok, true, JSON.stringify(stop));
  const files = (await readdir(server.recordingsDir)).filter((f) => names.includes(f));
  assert.equal(files.length, 4);
  socket.close();
});

test('a recording whose file cannot grow reports the write failure and what reached the disk', { timeout: 60_000 }, async () => {
  const dir = await mkdtemp(join(tmpdir(), 'is-full-'));
  try {
    // ulimit -f 16: at most 16 KiB per file, so the writes fail part-way (EFBIG), as on a full disk
    const out = await new Promise<string>((resolve, reject) =>
      execFile('bash', ['-c', `ulimit -f 16; exec "${process.execPath}" --import tsx test/reliability/fixtures/record-until-full.ts "${dir}"`], { cwd: ROOT }, (err, stdout, stderr) =>
        err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout),
      ),
    );
    const info = JSON.parse(out) as { arrivals: number; written: number; error?: string };
    assert.equal(info.arrivals, 3000);
    assert.ok(info.written < 3000, JSON.stringify(info));
    assert.match(String(info.error), /EFBIG|ENOSPC|too large|space/i);
    const lines = (await readFile(join(dir, 'full.ndjson'), 'utf8')).split('\n').filter((l) => l.includes('"t_us"')).length;
    assert.ok(lines >= info.written, `the file holds ${lines} arrivals, the recorder said ${info.written}`);
    console.log(`recording on a full disk: ${info.arrivals} captured, ${info.written} written, ${lines} on disk, error: ${info.error}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
