// Prometheus metrics and the statistics extension are one set of figures (as Triton builds both from its
// InferenceStatsAggregator): a real server (port 0, metrics port 0) serves real traffic to both versions
// of the MLP, successes and requests that time out in the queue, and after each round a scrape of
// /metrics must equal /v2/models/stats exactly, for every model version, counter and duration.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FAILURE_REASONS } from '@inferscope/core';
import { startTestServer, tempRepository, type TestServer } from '../support/server';
import { checkExposition, value, type ParsedSample } from './format-check';
import type { ModelStat } from '../../apps/server/src/stats/collector';

let server: TestServer;
let metricsUrl: string;
let repo: Awaited<ReturnType<typeof tempRepository>>;

before(async () => {
  repo = await tempRepository(['mlp_classifier'], 'is-metrics-stats-');
  const file = join(repo.dir, 'mlp_classifier', 'config.pbtxt');
  // A queue timeout that requests may shorten (the `timeout` parameter): a way to make queued failures.
  const text = (await readFile(file, 'utf8')).replace(
    'max_queue_delay_microseconds: 2000',
    'max_queue_delay_microseconds: 2000\n  default_queue_policy { default_timeout_microseconds: 60000000 allow_timeout_override: true }',
  );
  await writeFile(file, text);
  server = await startTestServer({ modelRepositories: [repo.dir], metricsPort: 0, grpcPort: null });
  assert.ok(server.metricsUrl, 'the metrics port is open');
  metricsUrl = server.metricsUrl;
});

after(async () => {
  await server?.close();
  await repo?.remove();
});

const input = Array.from({ length: 784 }, (_, i) => (i % 17) / 17);
async function infer(version: string, parameters?: Record<string, number>): Promise<number> {
  const res = await fetch(`${server.url}/v2/models/mlp_classifier/versions/${version}/infer`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ inputs: [{ name: 'input', datatype: 'FP32', shape: [1, 784], data: input }], ...(parameters ? { parameters } : {}) }),
  });
  await res.arrayBuffer();
  return res.status;
}

async function round(requests: number, concurrency: number, version: string): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next++ < requests) assert.equal(await infer(version), 200);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

/** Everything a scrape says about one model version, next to the statistics extension's row. */
function compare(samples: ParsedSample[], s: ModelStat): void {
  const L = { model: s.name, version: s.version };
  const us = (ns: number) => ns / 1000;
  const failures = FAILURE_REASONS.reduce((sum, reason) => sum + value(samples, 'nv_inference_request_failure', { ...L, reason })!, 0);
  const i = s.inference_stats;
  assert.deepEqual(
    {
      success: value(samples, 'nv_inference_request_success', L),
      failure: failures,
      inferences: value(samples, 'nv_inference_count', L),
      executions: value(samples, 'nv_inference_exec_count', L),
      request_us: value(samples, 'nv_inference_request_duration_us', L),
      queue_us: value(samples, 'nv_inference_queue_duration_us', L),
      compute_input_us: value(samples, 'nv_inference_compute_input_duration_us', L),
      compute_infer_us: value(samples, 'nv_inference_compute_infer_duration_us', L),
      compute_output_us: value(samples, 'nv_inference_compute_output_duration_us', L),
      pending: value(samples, 'nv_inference_pending_request_count', L),
    },
    {
      success: i.success.count,
      failure: i.fail.count,
      inferences: s.inference_count,
      executions: s.execution_count,
      request_us: us(i.success.ns),
      queue_us: us(i.queue.ns),
      compute_input_us: us(i.compute_input.ns),
      compute_infer_us: us(i.compute_infer.ns),
      compute_output_us: us(i.compute_output.ns),
      pending: 0,
    },
    `${s.name} v${s.version}`,
  );
  // Prometheus' microseconds are whole: the statistics hold whole µs, so no second rounding exists.
  for (const d of [i.success, i.queue, i.compute_input, i.compute_infer, i.compute_output]) assert.equal(d.ns % 1000, 0);
}

async function scrapeEqualsStats(): Promise<ModelStat[]> {
  const stats = ((await (await fetch(`${server.url}/v2/models/stats`)).json()) as { model_stats: ModelStat[] }).model_stats;
  const { samples } = checkExposition(await (await fetch(metricsUrl)).text());
  const versions = (name: string) => samples.filter((x) => x.name === name).map((x) => `${x.labels.model}/${x.labels.version}`).sort();
  assert.deepEqual(versions('nv_inference_count'), stats.map((s) => `${s.name}/${s.version}`).sort(), 'the same model versions');
  for (const s of stats) compare(samples, s);
  return stats;
}

test('a scrape equals the statistics extension after every round of real traffic', async () => {
  await scrapeEqualsStats(); // idle: zeros on both sides
  await round(120, 16, '1');
  await round(40, 4, '2');
  let stats = await scrapeEqualsStats();
  const v1 = stats.find((s) => s.version === '1')!;
  assert.equal(v1.inference_stats.success.count, 120);
  assert.ok(v1.execution_count > 0 && v1.execution_count <= 120, `${v1.execution_count} executions`);
  assert.ok(v1.inference_stats.success.ns > 0);

  // One at a time, each waits for the 2 ms batching delay: a 1 µs timeout expires in the queue.
  for (let k = 0; k < 3; k++) assert.equal(await infer('1', { timeout: 1 }), 503);
  await round(30, 8, '1');
  stats = await scrapeEqualsStats();
  const after = stats.find((s) => s.version === '1')!;
  assert.equal(after.inference_stats.fail.count, 3);
  assert.equal(after.inference_stats.success.count, 150);
  const { samples } = checkExposition(await (await fetch(metricsUrl)).text());
  assert.equal(value(samples, 'nv_inference_request_failure', { model: 'mlp_classifier', version: '1', reason: 'REJECTED' }), 3);
});
