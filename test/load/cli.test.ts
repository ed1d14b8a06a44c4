import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serializeTrace } from '@inferscope/core/load';
import { startRealServer, type RealServer } from '../live/real-server.ts';
import { perf } from '../../apps/server/src/cli/commands/perf.ts';
import { replay } from '../../apps/server/src/cli/commands/replay.ts';
import { ab, parsePatch } from '../../apps/server/src/cli/commands/ab.ts';
import { restorePatch } from '../../apps/server/src/clients/ab-compare.ts';
import type { ConfigChange } from '@inferscope/core';

let s: RealServer;
let dir: string;
before(async () => {
  s = await startRealServer();
  dir = await mkdtemp(join(tmpdir(), 'is-cli-'));
});
after(async () => {
  await s?.close();
  await rm(dir, { recursive: true, force: true });
});

test('perf measures concurrency steps, reads server queue/compute from the statistics API and writes the CSV', async () => {
  const lines: string[] = [];
  const csv = join(dir, 'perf.csv');
  const code = await perf(
    ['-m', 'mlp_classifier', '-u', s.url.replace('http://', ''), '--concurrency-range', '1:4:3', '--measurement-interval', '300', '--max-trials', '3', '--binary', '-f', csv],
    (x) => lines.push(x),
    () => {},
  );
  const text = lines.join('\n');
  assert.equal(code, 0, text);
  assert.match(text, /Request concurrency: 1/);
  assert.match(text, /Request concurrency: 4/);
  assert.match(text, /Avg request latency: \d+ usec \(overhead \d+ usec \+ queue \d+ usec/);
  assert.match(text, /Inferences\/Second vs\. Client Average Batch Latency/);
  assert.match(text, /Avg latency: \d+ usec \(standard deviation \d+ usec\)/);
  const rows = (await readFile(csv, 'utf8')).trim().split('\n');
  assert.equal(rows.length, 3);
  assert.ok(rows[0].startsWith('Concurrency,Inferences/Second,Client Send,Network+Server Send/Recv,Server Queue'));
  const c4 = rows[2].split(',').map(Number);
  assert.equal(c4[0], 4);
  assert.ok(c4[1] > 0, 'throughput');
  assert.ok(c4[6] > 0, 'server compute infer from the statistics API');
  assert.ok(c4[9] <= c4[12], 'p50 <= p99');
});

test('perf request-rate mode and its errors', async () => {
  const lines: string[] = [];
  const code = await perf(
    ['-m', 'mlp_classifier', '-u', s.url, '--request-rate-range', '50', '--request-distribution', 'poisson', '--measurement-interval', '300', '--max-trials', '3', '--percentile', '95'],
    (x) => lines.push(x),
    () => {},
  );
  assert.equal(code, 0, lines.join('\n'));
  assert.match(lines.join('\n'), /Request Rate: 50 inference requests per seconds/);
  assert.match(lines.join('\n'), /Client p95 Batch Latency/);
  await assert.rejects(perf(['-m', 'nope', '-u', s.url], () => {}, () => {}), /nope/);
  // sequence options on a stateless model are refused, not ignored
  await assert.rejects(perf(['-m', 'mlp_classifier', '-u', s.url, '--sequence-length', '5'], () => {}, () => {}), /apply to a stateful model/);
  await assert.rejects(perf(['-u', s.url], () => {}, () => {}), /needs -m MODEL/);
  await assert.rejects(perf(['-m', 'x', '--concurrency-range', '0:2'], () => {}, () => {}), /positive/);
  await assert.rejects(perf(['-m', 'x', '--bogus'], () => {}, () => {}), /unknown option --bogus/);
});

test('replay sends a trace at the chosen speed', async () => {
  const trace = join(dir, 't.ndjson');
  const arrivals = Array.from({ length: 30 }, (_, i) => ({ t_us: i * 20_000, model: 'mlp_classifier', batch_size: 1 + (i % 3) }));
  await writeFile(trace, serializeTrace({ source: 'test' }, arrivals));
  const lines: string[] = [];
  const t0 = performance.now();
  const code = await replay([trace, '--url', s.url, '--speed', '2', '--json'], (x) => lines.push(x), () => {});
  const ms = performance.now() - t0;
  assert.equal(code, 0, lines.join('\n'));
  const report = JSON.parse(lines.join('\n'));
  assert.equal(report.ok, 30);
  assert.equal(report.arrivals, 30);
  assert.ok(ms >= 280, `30 arrivals 20 ms apart at 2x take at least 290 ms, took ${ms}`);
  await writeFile(join(dir, 'bad.ndjson'), '{"format":"inferscope-trace","version":1}\n{"t_us":-1,"model":"m","batch_size":1}\n');
  await assert.rejects(replay([join(dir, 'bad.ndjson'), '--url', s.url], () => {}, () => {}), /line 2/);
});

test('ab compares two configurations on identical traffic through the control channel and the statistics API', async () => {
  const before = s.manager.get('mlp_classifier')!.config.dynamic_batching;
  const lines: string[] = [];
  const code = await ab(
    ['-m', 'mlp_classifier', '-u', s.url, '--scenario', 'poisson', '--rate', '150', '--duration', '0.8', '--seed', '5', '--binary', '--json',
      '--a', 'max_queue_delay_microseconds=0', '--b', '{"max_queue_delay_microseconds":20000,"preferred_batch_size":[]}'],
    (x) => lines.push(x),
    {},
  );
  assert.equal(code, 0, lines.join('\n'));
  const r = JSON.parse(lines.join('\n'));
  assert.equal(r.a.client.count, r.requests);
  assert.equal(r.b.client.count, r.requests);
  assert.equal(r.a.server.completed, r.requests, 'the statistics API saw every request of A');
  assert.ok(r.b.server.avg_batch_size > 2 * r.a.server.avg_batch_size, JSON.stringify([r.a.server, r.b.server]));
  assert.deepEqual(s.manager.get('mlp_classifier')!.config.dynamic_batching, before, 'restored');
  assert.throws(() => parsePatch('max_queue_delay_microseconds=-5', 'm', '--a'), /--a: 'max_queue_delay_microseconds' must be between/);
  assert.throws(() => parsePatch('colour=red', 'm', '--b'), /unknown field 'colour'/);
  assert.deepEqual(parsePatch('preferred_batch_size=[8,16];preserve_ordering=true', 'm', '--a'), { preferred_batch_size: [8, 16], preserve_ordering: true });
  // the dashboard's words work here too (one grammar), the instance count included
  assert.deepEqual(parsePatch('delay=2000 preferred=8,16 instances=2', 'm', '--a'), { max_queue_delay_microseconds: 2000, preferred_batch_size: [8, 16], instance_count: 2 });
  assert.throws(() => parsePatch('instances=0', 'm', '--b'), /--b: 'instance_count' must be between 1 and 64, got 0/);
});

test('ab restores what it changed, the first group\'s instance count included', () => {
  const change = (path: string, old: unknown, value: unknown): ConfigChange => ({ path, old, new: value });
  assert.deepEqual(
    restorePatch([change('instance_group[0].count', 1, 2), change('dynamic_batching.max_queue_delay_microseconds', 100, 2000), change('instance_group[0].count', 2, 3), change('instance_group[1].count', 4, 5)]),
    { instance_count: 1, max_queue_delay_microseconds: 100 },
  );
});
