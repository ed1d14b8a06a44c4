/**
 * Triton's qa bounds what a response cache may cost under unique inputs (L0_response_cache's memory growth
 * test). Two checks: through the real server, 10,000 requests with inputs never seen before keep the
 * cache within its size (it evicts, the accounting never passes the size); and the cache alone, fed the
 * same 10,000 unique inputs, really holds no more memory than its size plus a small constant (its
 * accounting is what the heap holds: evicted entries are released, nothing else is kept per request).
 * The second is measured without the server, whose own recent-request bookkeeping makes the process's
 * memory swing by tens of MiB over 10,000 requests whether a cache is on or not.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { InferPayload, InferResult } from '@inferscope/core';
import { InferenceCache, ResponseCache } from '@inferscope/core/response-cache';
import { startTestServer, tempRepository, type TestServer } from '../support/server.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const CACHE_BYTES = 2 * 1024 * 1024;
let server: TestServer;
let repo: { dir: string; remove(): Promise<void> };
before(async () => {
  repo = await tempRepository([]);
  await mkdir(join(repo.dir, 'cached', '1'), { recursive: true });
  await writeFile(join(repo.dir, 'cached', 'config.pbtxt'), `name: "cached"
backend: "onnxruntime"
max_batch_size: 32
input [{ name: "input" data_type: TYPE_FP32 dims: [784] }]
output [{ name: "probabilities" data_type: TYPE_FP32 dims: [10] }]
dynamic_batching { max_queue_delay_microseconds: 1000 }
instance_group [{ count: 1 kind: KIND_CPU }]
response_cache { enable: true }
`);
  await writeFile(join(repo.dir, 'cached', '1', 'model.onnx'), await readFile(new URL('../../model_repository/mlp_classifier/1/model.onnx', import.meta.url)));
  server = await startTestServer({ modelRepositories: [repo.dir], grpcPort: null, live: false, eventCap: 0, responseCache: { size: CACHE_BYTES } });
});
after(async () => {
  await server?.close();
  await repo?.remove();
});

/** an input no other seed shares */
const unique = (seed: number): InferPayload => {
  const data = new Float32Array(784).fill(0.5);
  data[0] = seed;
  return { inputs: [{ name: 'input', datatype: 'FP32', shape: [1, 784], data }] };
};

test('10,000 unique inputs through the server: the cache evicts and stays within its size', { timeout: 120_000 }, async () => {
  let next = 0;
  const worker = async () => {
    while (next < 10_000) await server.built.manager.infer('cached', undefined, { batchSize: 1, shapeKey: '', payload: unique(next++) });
  };
  await Promise.all(Array.from({ length: 32 }, worker));
  const s = server.built.manager.options.responseCache!.cache.stats();
  assert.ok(s.bytes <= CACHE_BYTES && s.bytes > CACHE_BYTES - 8 * 1024, `cache holds ${s.bytes} bytes`);
  assert.equal(s.misses, 10_000);
  assert.equal(s.entries + s.evictions, 10_000);
});

test('the cache alone holds no more memory than its size plus a small constant after 10,000 unique inputs', async (t) => {
  const used = () => {
    gc();
    gc();
    const m = process.memoryUsage();
    return m.heapUsed + m.arrayBuffers;
  };
  const cache = new InferenceCache(new ResponseCache<InferResult>(CACHE_BYTES), () => 0);
  const answer = (): Promise<InferResult> => Promise.resolve([{ name: 'probabilities', datatype: 'FP32', shape: [1, 10], data: new Float32Array(10) }]);
  const base = used();
  for (let i = 0; i < 10_000; i++) await cache.infer({ model: 'cached', version: 1, request: { batchSize: 1, shapeKey: '', payload: unique(i) }, startUs: 0 }, answer);
  const growth = used() - base;
  t.diagnostic(`held ${(growth / 1048576).toFixed(2)} MiB for a ${CACHE_BYTES / 1048576} MiB cache (${cache.cache.stats().entries} entries)`);
  assert.ok(growth < CACHE_BYTES + 1024 * 1024, `grew by ${(growth / 1048576).toFixed(2)} MiB`);
  assert.ok(growth > CACHE_BYTES / 2, 'the measure sees the entries the cache does hold');
});
