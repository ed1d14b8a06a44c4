/**
 * Triton's trace and logging extensions: settings read and changed as tritonclient does it
 * (get/update_trace_settings, get/update_log_settings over HTTP), and trace files in Triton's format
 * written from real inferences.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer } from '../support/server.ts';
import { mlpBody } from '../reliability/load-tools.ts';

const MODEL = 'mlp_classifier';
const ORDER = ['REQUEST_START', 'QUEUE_START', 'COMPUTE_START', 'COMPUTE_INPUT_END', 'COMPUTE_OUTPUT_START', 'COMPUTE_END', 'REQUEST_END'];

async function infer(app: import('fastify').FastifyInstance, n: number) {
  for (let i = 0; i < n; i++) {
    const b = mlpBody(MODEL, 1, `r${i}`);
    const res = await app.inject({ method: 'POST', url: b.url, headers: b.headers, payload: b.body });
    assert.equal(res.statusCode, 200, res.body);
  }
}

type Entry = { id: number; model_name?: string; model_version?: number; timestamps?: Array<{ name: string; ns: number }> };

function traces(entries: Entry[]) {
  const byId = new Map<number, { model?: string; ts: Record<string, number> }>();
  for (const e of entries) {
    const t = byId.get(e.id) ?? { ts: {} };
    if (e.model_name) t.model = e.model_name;
    for (const x of e.timestamps ?? []) t.ts[x.name] = x.ns;
    byId.set(e.id, t);
  }
  return [...byId.values()];
}

test('trace settings: Triton defaults, strings on the wire, model overrides and null, trace_file refused', async () => {
  const server = await startTestServer({ modelControlMode: 'explicit', loadModels: [MODEL] });
  const app = server.built.app;
  try {
    const get = async (url: string) => (await app.inject({ url })).json();
    const post = (url: string, payload: unknown) => app.inject({ method: 'POST', url, payload: payload as object });
    assert.deepEqual(await get('/v2/trace/setting'), { trace_level: ['OFF'], trace_rate: '1000', trace_count: '-1', log_frequency: '0', trace_file: '', trace_mode: 'triton' });
    const m = await post(`/v2/models/${MODEL}/trace/setting`, { trace_rate: '5', trace_level: ['TIMESTAMPS'] });
    assert.equal(m.statusCode, 200, m.body);
    assert.equal(m.json().trace_rate, '5');
    assert.equal((await get('/v2/trace/setting')).trace_rate, '1000', 'the global setting is untouched');
    await post('/v2/trace/setting', { trace_count: '7' });
    assert.equal((await get(`/v2/models/${MODEL}/trace/setting`)).trace_count, '7', 'unset model fields follow the global value');
    const cleared = await post(`/v2/models/${MODEL}/trace/setting`, { trace_rate: null });
    assert.equal(cleared.json().trace_rate, '1000', 'null clears the override');
    const file = await post('/v2/trace/setting', { trace_file: '/etc/passwd' });
    assert.equal(file.statusCode, 501);
    assert.deepEqual(file.json(), { error: 'trace file location can not be updated through network protocol' });
    for (const bad of [{ trace_rate: 'fast' }, { trace_level: ['LOUD'] }, { trace_count: '-2' }, { bogus: 1 }, [1]]) {
      assert.equal((await post('/v2/trace/setting', bad)).statusCode, 400, JSON.stringify(bad));
    }
    // an unknown model is Triton's NOT_FOUND: 404 with the repository manager's words, as on every route
    const unknown = await app.inject({ url: '/v2/models/nope/trace/setting' });
    assert.deepEqual([unknown.statusCode, unknown.json()], [404, { error: "Request for unknown model: 'nope' is not found" }]);
    assert.ok((await get('/v2')).extensions.includes('trace'));
  } finally {
    await server.close();
  }
});

test('traces from real inferences, in Triton\'s file format, with rate, count and log frequency', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'is-trace-'));
  const file = join(dir, 'trace.json');
  const server = await startTestServer({ modelControlMode: 'explicit', loadModels: [MODEL], traceConfig: [`triton,file=${file}`, 'level=TIMESTAMPS', 'rate=1'] });
  const app = server.built.app;
  try {
    await infer(app, 4);
    // every 2nd request, at most 2 more, written every 1 trace to trace.json.N
    const res = await app.inject({ method: 'POST', url: '/v2/trace/setting', payload: { trace_rate: '2', trace_count: '2', log_frequency: '1' } });
    assert.equal(res.statusCode, 200, res.body);
    await infer(app, 8);
    assert.equal((await app.inject({ url: '/v2/trace/setting' })).json().trace_count, '0', 'the count runs down');
  } finally {
    await server.close();
  }
  try {
    // Once log_frequency is 1, each finished trace writes what is buffered to trace.json.N (the first file
    // also takes the four traces collected before); nothing is left for trace.json at shutdown.
    const numbered = [0, 1].map((i) => `${file}.${i}`);
    for (const f of numbered) assert.ok(existsSync(f), f);
    assert.equal(existsSync(file), false);
    assert.equal(traces(JSON.parse(readFileSync(numbered[1], 'utf8')) as Entry[]).length, 1);
    const all = numbered.flatMap((f) => traces(JSON.parse(readFileSync(f, 'utf8')) as Entry[]));
    assert.equal(all.length, 4 + 2);
    for (const t of all) {
      assert.equal(t.model, MODEL);
      const seq = ORDER.map((n) => t.ts[n]);
      assert.ok(seq.every((v) => typeof v === 'number'), JSON.stringify(t.ts));
      for (let i = 1; i < seq.length; i++) assert.ok(seq[i] >= seq[i - 1], `${ORDER[i]} after ${ORDER[i - 1]}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('logging settings apply to the server log live; the log file cannot be moved over the network', async () => {
  const lines: string[] = [];
  const server = await startTestServer({ modelControlMode: 'explicit', loadModels: [], log: (l) => lines.push(l) });
  const app = server.built.app;
  try {
    assert.deepEqual((await app.inject({ url: '/v2/logging' })).json(), { log_file: '', log_info: true, log_warning: true, log_error: true, log_verbose_level: 0, log_format: 'default' });
    const iso = await app.inject({ method: 'POST', url: '/v2/logging', payload: { log_format: 'ISO8601', log_verbose_level: 1 } });
    assert.equal(iso.statusCode, 200, iso.body);
    server.built.logger.info('hello');
    assert.match(lines.at(-1)!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ I hello$/);
    await app.inject({ method: 'POST', url: '/v2/logging', payload: { log_info: false } });
    const before = lines.length;
    server.built.logger.info('quiet');
    server.built.logger.error('loud');
    assert.equal(lines.length, before + 1);
    assert.match(lines.at(-1)!, / E loud$/);
    const move = await app.inject({ method: 'POST', url: '/v2/logging', payload: { log_file: '/tmp/x.log' } });
    assert.equal(move.statusCode, 501);
    assert.deepEqual(move.json(), { error: 'log file location can not be updated through network protocol' });
    for (const bad of [{ log_info: 'yes' }, { log_verbose_level: -1 }, { log_format: 'xml' }, { nope: true }]) {
      assert.equal((await app.inject({ method: 'POST', url: '/v2/logging', payload: bad })).statusCode, 400, JSON.stringify(bad));
    }
  } finally {
    await server.close();
  }
});

test('with log_frequency 0 the traces are written to the trace file at shutdown, and turning tracing off writes them at once', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'is-trace-'));
  const file = join(dir, 'trace.json');
  const server = await startTestServer({ modelControlMode: 'explicit', loadModels: [MODEL], traceConfig: [`triton,file=${file}`, 'level=TIMESTAMPS', 'rate=1'] });
  try {
    await infer(server.built.app, 3);
    assert.equal(existsSync(file), false, 'nothing written while tracing runs with log_frequency 0');
    await server.built.app.inject({ method: 'POST', url: '/v2/trace/setting', payload: { trace_level: ['OFF'] } });
    await server.built.tracer.flush();
    assert.equal(traces(JSON.parse(readFileSync(file, 'utf8')) as Entry[]).length, 3);
    await infer(server.built.app, 2);
  } finally {
    await server.close();
  }
  try {
    assert.equal(traces(JSON.parse(readFileSync(file, 'utf8')) as Entry[]).length, 3, 'no traces while OFF');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
