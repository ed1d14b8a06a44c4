/**
 * The response cache and the rate limiter through the real server on port 0 (issue 54): a hit answers with
 * the miss's outputs and counts as Triton counts it (statistics and /metrics), unique inputs stay within
 * the cache's size, identical requests at once stay consistent, and resource needs the command line
 * cannot meet fail the load with Triton's words.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startTestServer, tempRepository, type TestServer } from '../support/server.ts';

const CACHE_BYTES = 64 * 1024;
const modelConfig = (name: string, extra: string) => `name: "${name}"
backend: "onnxruntime"
max_batch_size: 8
input [{ name: "input" data_type: TYPE_FP32 dims: [784] }]
output [{ name: "probabilities" data_type: TYPE_FP32 dims: [10] }]
${extra.includes('sequence_batching') ? '' : 'dynamic_batching { max_queue_delay_microseconds: 500 }'}
${extra}
`;
const limited = (need: number) => `instance_group [{ count: 1 kind: KIND_CPU rate_limiter { resources [{ name: "accelerator" count: ${need} }] priority: 1 } }]`;
const MODELS: Record<string, string> = {
  cached: `response_cache { enable: true }\n${limited(1)}`,
  uncached: limited(1),
  too_hungry: limited(4),
  decoupled_cached: 'model_transaction_policy { decoupled: true }\nresponse_cache { enable: true }',
  sequence_cached: 'sequence_batching { }\nresponse_cache { enable: true }',
};

/** a one-step ensemble over `step`, named `name`, caching at its own level when `cache` */
const ensembleConfig = (name: string, step: string, cache: boolean) => `name: "${name}"
platform: "ensemble"
max_batch_size: 8
input [{ name: "x" data_type: TYPE_FP32 dims: [784] }]
output [{ name: "y" data_type: TYPE_FP32 dims: [10] }]
ensemble_scheduling { step [{ model_name: "${step}" model_version: -1 input_map { key: "input" value: "x" } output_map { key: "probabilities" value: "y" } }] }
${cache ? 'response_cache { enable: true }' : ''}
`;
const ENSEMBLES = { ens_top: ensembleConfig('ens_top', 'uncached', true), ens_plain: ensembleConfig('ens_plain', 'cached', false) };

let server: TestServer;
let repo: { dir: string; remove(): Promise<void> };
before(async () => {
  repo = await tempRepository([]);
  const model = await readFile(new URL('../../model_repository/mlp_classifier/1/model.onnx', import.meta.url));
  for (const [name, extra] of Object.entries(MODELS)) {
    await mkdir(join(repo.dir, name, '1'), { recursive: true });
    await writeFile(join(repo.dir, name, 'config.pbtxt'), modelConfig(name, extra));
    await writeFile(join(repo.dir, name, '1', 'model.onnx'), model);
  }
  for (const [name, text] of Object.entries(ENSEMBLES)) {
    await mkdir(join(repo.dir, name, '1'), { recursive: true });
    await writeFile(join(repo.dir, name, 'config.pbtxt'), text);
  }
  server = await startTestServer({
    modelRepositories: [repo.dir], metricsPort: 0, grpcPort: null, live: false,
    responseCache: { size: CACHE_BYTES }, rateLimit: 'execution_count', rateLimitResources: [{ name: 'accelerator', count: 2, device: null }],
  });
});
after(async () => {
  await server?.close();
  await repo?.remove();
});

const input = (seed: number) => Array.from({ length: 784 }, (_, i) => ((i * 7 + seed * 13) % 101) / 100);
async function infer(model: string, data: number[], inputName = 'input'): Promise<{ outputs: { name: string; shape: number[]; data: number[] }[] }> {
  const res = await fetch(`${server.url}/v2/models/${model}/infer`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ inputs: [{ name: inputName, datatype: 'FP32', shape: [1, 784], data }] }),
  });
  assert.equal(res.status, 200, await res.clone().text());
  return res.json() as never;
}
type Stat = { inference_count: number; execution_count: number; inference_stats: Record<string, { count: number; ns: number }>; batch_stats: unknown[] };
async function stats(model: string): Promise<Stat> {
  const body = await (await fetch(`${server.url}/v2/models/${model}/stats`)).json() as { model_stats: Stat[] };
  return body.model_stats[0];
}

test('a hit returns the miss\'s outputs and counts as Triton: success and queue, cache_hit; no inference, execution or compute', async () => {
  const before = await stats('cached');
  const first = await infer('cached', input(1));
  const second = await infer('cached', input(1));
  assert.deepEqual(second.outputs, first.outputs);
  const after = await stats('cached');
  const delta = (k: string) => after.inference_stats[k].count - before.inference_stats[k].count;
  assert.deepEqual(
    ['success', 'queue', 'cache_hit', 'cache_miss', 'compute_infer', 'compute_input'].map(delta), [2, 2, 1, 1, 1, 1]);
  assert.equal(after.inference_count - before.inference_count, 1);
  assert.equal(after.execution_count - before.execution_count, 1);
  // a model that does not enable the cache is never answered from it
  await infer('uncached', input(1));
  await infer('uncached', input(1));
  const u = await stats('uncached');
  assert.deepEqual([u.inference_stats.cache_hit.count, u.inference_stats.cache_miss.count, u.inference_count], [0, 0, 2]);
  const metrics = await (await fetch(server.metricsUrl!)).text();
  assert.match(metrics, /nv_cache_num_hits_per_model\{model="cached",version="1"\} [1-9]/);
  assert.match(metrics, /nv_cache_num_misses_per_model\{model="cached",version="1"\} [1-9]/);
  assert.doesNotMatch(metrics, /nv_cache_num_hits_per_model\{model="uncached"/, 'per-model cache series only where the cache is on');
  assert.match(metrics, /nv_cache_num_entries [1-9]/);
  assert.match(metrics, /nv_cache_util 0\.\d+/);
});

test('identical requests at once all get the same answer; one response is stored and one miss counted', async () => {
  const before = await stats('cached');
  const answers = await Promise.all(Array.from({ length: 16 }, () => infer('cached', input(2))));
  for (const a of answers) assert.deepEqual(a.outputs, answers[0].outputs);
  const after = await stats('cached');
  const d = (k: string) => after.inference_stats[k].count - before.inference_stats[k].count;
  const ran = after.inference_count - before.inference_count;
  assert.equal(d('success'), 16);
  assert.equal(d('cache_miss'), 1, 'only the request that stored counts as the miss');
  assert.equal(d('cache_hit') + ran, 16, 'each request either hit or ran');
  assert.ok(ran >= 1);
});

test('unique inputs keep the cache within its size (least recently used evicted)', async () => {
  const cache = server.built.manager.options.responseCache!.cache;
  for (let round = 0; round < 10; round++) {
    await Promise.all(Array.from({ length: 20 }, (_, i) => infer('cached', input(1000 + round * 20 + i))));
    assert.ok(cache.stats().bytes <= CACHE_BYTES);
  }
  const s = cache.stats();
  assert.ok(s.evictions > 0 && s.entries > 0, JSON.stringify(s));
  // the oldest entry (input 1) was evicted: it runs again
  const before = await stats('cached');
  await infer('cached', input(1));
  assert.equal((await stats('cached')).inference_count - before.inference_count, 1);
});

test("a rate-limiter need above --rate-limit-resource, or the cache on a decoupled or sequence model, fails the load with Triton's words", async () => {
  const index = await (await fetch(`${server.url}/v2/repository/index`, { method: 'POST', body: '{}' })).json() as { name: string; state: string; reason?: string }[];
  const hungry = index.find((m) => m.name === 'too_hungry');
  assert.equal(hungry?.state, 'UNAVAILABLE');
  assert.equal(hungry?.reason,
    'Resource count for "accelerator" is limited to 2 which will prevent scheduling of one or more model instances, the minimum required count is 4');
  assert.equal(index.find((m) => m.name === 'cached')?.state, 'READY');
  // decoupled and sequence models are refused the cache in Triton's words
  const reason = (name: string) => index.find((m) => m.name === name)?.reason ?? '';
  assert.match(reason('decoupled_cached'), /Response Cache does not currently support model decoupled_cached with 'decoupled' transaction policy\. Please disable the response cache\./);
  assert.match(reason('sequence_cached'), /Response Cache does not currently support model sequence_cached with sequence batching scheduler\. Please disable the response cache\./);
});

test('an ensemble caches at its top level, and its composing models on their own', async () => {
  // ens_top caches; its step (uncached) does not: the second request never reaches the step
  const stepBefore = await stats('uncached');
  const a = await infer('ens_top', input(500), 'x');
  const b = await infer('ens_top', input(500), 'x');
  assert.deepEqual(b.outputs, a.outputs);
  const top = await stats('ens_top');
  assert.deepEqual([top.inference_stats.cache_hit.count, top.inference_stats.cache_miss.count, top.inference_stats.success.count], [1, 1, 2]);
  assert.equal((await stats('uncached')).inference_count - stepBefore.inference_count, 1);
  // ens_plain does not cache; its step (cached) does: the ensemble runs twice, the step once
  const stepCached = await stats('cached');
  const c = await infer('ens_plain', input(600), 'x');
  const d = await infer('ens_plain', input(600), 'x');
  assert.deepEqual(d.outputs, c.outputs);
  const plain = await stats('ens_plain');
  assert.deepEqual([plain.inference_stats.cache_hit.count, plain.inference_stats.success.count], [0, 2]);
  const after = await stats('cached');
  assert.equal(after.inference_count - stepCached.inference_count, 1);
  assert.equal(after.inference_stats.cache_hit.count - stepCached.inference_stats.cache_hit.count, 1);
});
