/**
 * Trace settings anyone with the token may change cannot grow the server without bound (issue 28):
 * - tracing switched on over the network with no trace file kept every trace in memory (RSS 262 -> 544
 *   MB over 8,000 requests): now nothing is kept, as nothing could ever be written;
 * - trace_rate 1, log_frequency 1, trace_count -1 wrote one file per request without a cap: now a run
 *   writes at most TRACE_LIMITS (files, bytes) and then drops traces, saying so once in the log.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer } from '../support/server.ts';
import { mlpBody } from './load-tools.ts';
import { TRACE_LIMITS } from '../../apps/server/src/trace/tracer.ts';

const MODEL = 'mlp_classifier';

async function infer(app: import('fastify').FastifyInstance, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const b = mlpBody(MODEL, 1, `r${i}`);
    const res = await app.inject({ method: 'POST', url: b.url, headers: b.headers, payload: b.body });
    assert.equal(res.statusCode, 200, res.body);
  }
}

test('tracing switched on over the network without a trace file keeps no traces', async () => {
  const warnings: string[] = [];
  const server = await startTestServer({ modelControlMode: 'explicit', loadModels: [MODEL], live: false, log: (line) => warnings.push(line) });
  const app = server.built.app;
  try {
    const on = await app.inject({ method: 'POST', url: '/v2/trace/setting', payload: { trace_level: ['TIMESTAMPS'], trace_rate: '1' } });
    assert.equal(on.statusCode, 200, on.body);
    assert.ok(warnings.some((w) => /without a trace file/.test(w)), `warned: ${JSON.stringify(warnings)}`);
    await infer(app, 400);
    const tracer = server.built.tracer;
    assert.equal(tracer.collected, 400, 'every request was traced');
    assert.equal(tracer.buffered, 0, 'and none is held in memory');
    assert.equal(tracer.dropped, 400);
  } finally {
    await server.close();
  }
});

test('trace files and bytes are bounded per run: past the bound traces are dropped with one warning', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'is-trace-bound-'));
  const file = join(dir, 'trace.json');
  const saved = { ...TRACE_LIMITS };
  TRACE_LIMITS.files = 25; // the tracer reads the bound when it is built (the default is 1000 files)
  const warnings: string[] = [];
  const server = await startTestServer({ modelControlMode: 'explicit', loadModels: [MODEL], live: false, log: (line) => warnings.push(line), traceConfig: [`triton,file=${file}`, 'level=TIMESTAMPS', 'rate=1'] });
  Object.assign(TRACE_LIMITS, saved);
  const app = server.built.app;
  try {
    const res = await app.inject({ method: 'POST', url: '/v2/trace/setting', payload: { trace_rate: '1', log_frequency: '1', trace_count: '-1' } });
    assert.equal(res.statusCode, 200, res.body);
    await infer(app, 60);
    await server.built.tracer.flush();
    const files = readdirSync(dir).filter((f) => f.startsWith('trace.json'));
    assert.equal(files.length, 25, `files: ${files.length}`);
    assert.equal(server.built.tracer.dropped, 35);
    const stops = warnings.filter((w) => /stopped writing trace files/.test(w));
    assert.equal(stops.length, 1, JSON.stringify(warnings));
    assert.match(stops[0]!, /25 files/);
  } finally {
    Object.assign(TRACE_LIMITS, saved);
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the bytes bound stops writing before a file would pass it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'is-trace-bytes-'));
  const file = join(dir, 'trace.json');
  const saved = { ...TRACE_LIMITS };
  TRACE_LIMITS.bytes = 4000; // a trace file of one trace is ~500 bytes
  const server = await startTestServer({ modelControlMode: 'explicit', loadModels: [MODEL], live: false, traceConfig: [`triton,file=${file}`, 'level=TIMESTAMPS', 'rate=1', 'triton,log-frequency=1'] });
  Object.assign(TRACE_LIMITS, saved);
  try {
    await infer(server.built.app, 40);
    await server.built.tracer.flush();
    const files = readdirSync(dir).filter((f) => f.startsWith('trace.json'));
    assert.ok(files.length > 0 && files.length < 40, `files: ${files.length}`);
    assert.equal(server.built.tracer.dropped, 40 - files.length);
  } finally {
    Object.assign(TRACE_LIMITS, saved);
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
