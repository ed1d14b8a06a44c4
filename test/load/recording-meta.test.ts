// A recording says what it recorded: its header names the model, the version and the tuning fields the
// traffic met; its last line holds the run's figures (the server's over the run's window); `replay`
// prints both before its own, and a trace reader skips the summary (and refuses a line after it).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseTrace, TraceError } from '@inferscope/core/load';
import type { ControlAck, LoadServerFigures } from '@inferscope/core';
import { startRealServer, type RealServer } from '../live/real-server.ts';
import { replay } from '../../apps/server/src/cli/commands/replay.ts';

let s: RealServer;
before(async () => {
  s = await startRealServer();
});
after(async () => {
  await s?.close();
});

test('a recorded run carries model, version, config and its server figures; replay shows them', async () => {
  const c = await s.connect();
  try {
    const start = await c.timeout(15_000).emitWithAck('control', { action: 'startLoad', model: 'mlp_classifier', version: '2', scenario: 'steady', rate: 40, duration: 1, seed: 3, record: true }) as ControlAck & { id: string; recording: string };
    assert.equal(start.ok, true, JSON.stringify(start));
    const run = await s.load.wait(start.id);
    const trace = parseTrace(await readFile(join(s.recordingsDir, start.recording), 'utf8'));
    assert.equal(trace.header.model, 'mlp_classifier');
    assert.equal(trace.header.model_version, '2');
    const config = trace.header.config as { max_batch_size: number; dynamic_batching: { max_queue_delay_microseconds: number }; instance_group: unknown[] };
    assert.equal(typeof config.max_batch_size, 'number');
    assert.equal(typeof config.dynamic_batching.max_queue_delay_microseconds, 'number');
    assert.ok(config.instance_group.length > 0);
    assert.ok(trace.summary, 'the recording ends with a summary line');
    assert.equal(trace.summary.answered, run.result.answered);
    const server = trace.summary.server as LoadServerFigures;
    // nothing else sent to the model: the server counted exactly the run's answered requests
    assert.equal(server.requests, run.result.answered);
    assert.ok(server.requests > 0 && server.latency_us.p99 >= server.latency_us.p50 && server.latency_us.p50 > 0, JSON.stringify(server));
    assert.equal(trace.arrivals.length, run.result.sent, 'the summary is no arrival');

    const lines: string[] = [];
    const code = await replay([join(s.recordingsDir, start.recording), '--url', s.url], (x) => lines.push(x), () => {});
    const text = lines.join('\n');
    assert.equal(code, 0, text);
    assert.match(text, /Recording: mlp_classifier version 2, scenario steady \(seed 3\)/);
    assert.match(text, /Config then: max_batch_size \d+, max_queue_delay \d+ usec/);
    assert.match(text, new RegExp(`Recorded server: ${server.requests} requests, p50 \\d+ usec, p99 \\d+ usec`));
    assert.ok(text.indexOf('Recorded server') < text.indexOf('Replayed'), 'the original figures come first');
  } finally {
    c.close();
  }
});

test('the summary must be the last line and an object', () => {
  const head = '{"format":"inferscope-trace","version":1}';
  const arrival = '{"t_us":0,"model":"m","batch_size":1}';
  assert.deepEqual(parseTrace(`${head}\n${arrival}\n{"summary":{"sent":1}}\n`).summary, { sent: 1 });
  assert.throws(() => parseTrace(`${head}\n{"summary":{"sent":1}}\n${arrival}\n`), (e: unknown) => e instanceof TraceError && /line 3: a line after the summary/.test(e.message));
  assert.throws(() => parseTrace(`${head}\n{"summary":[1]}\n`), /"summary" must be a JSON object/);
  assert.equal(parseTrace(`${head}\n${arrival}\n`).summary, undefined);
});
