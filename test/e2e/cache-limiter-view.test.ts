/**
 * The response cache and the rate limiter, seen (issue 54): the real server on port 0 with a cache and a
 * rate limiter. Performance shows a cached model's hits, misses, hit rate and the shared buffer's fill as
 * the server counts them; State shows the one resource (count 1), the instance that holds it and the one
 * that waits for it, drawn waiting. Two python models hold their batch while a file exists, so "one runs,
 * the other waits" is a fact the test sets up, not a race it hopes to catch.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { openWatchedPage, chromiumMissing, screenshot, type LaunchedBrowser } from './browser';
import { ensureWebBuilt, WEB_DIST } from './server-under-test';
import { startTestServer, tempRepository, type TestServer } from '../support/server';
import { NO_NUMPY } from '../backends/stub-fixtures.ts';
// the page's window.__inferscopeLabels (declared where the data-flow view defines it)
import type {} from '../../apps/web/src/views/DataView';

const missing = chromiumMissing() ?? (NO_NUMPY ? 'python3 with numpy is absent' : undefined);
const CACHE_BYTES = 256 * 1024;

const CACHED = `name: "cached"
backend: "onnxruntime"
max_batch_size: 8
input [{ name: "input" data_type: TYPE_FP32 dims: [784] }]
output [{ name: "probabilities" data_type: TYPE_FP32 dims: [10] }]
response_cache { enable: true }
`;
/** waits in execute() while <repository>/hold exists */
const HOLD_PY = `
import os, time
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def initialize(self, args):
        self.hold = os.path.join(os.path.dirname(args["model_repository"]), "hold")

    def execute(self, requests):
        while os.path.exists(self.hold):
            time.sleep(0.02)
        return [pb_utils.InferenceResponse([pb_utils.Tensor("OUT", pb_utils.get_input_tensor_by_name(r, "IN").as_numpy())]) for r in requests]
`;
const heavy = (name: string, priority: number) => `name: "${name}"
backend: "python"
max_batch_size: 0
input [{ name: "IN" data_type: TYPE_FP32 dims: [1] }]
output [{ name: "OUT" data_type: TYPE_FP32 dims: [1] }]
instance_group [{ count: 1 kind: KIND_CPU rate_limiter { resources [{ name: "accelerator" global: true count: 1 }] priority: ${priority} } }]
`;

let server: TestServer;
let repo: { dir: string; remove(): Promise<void> };
let browser: LaunchedBrowser;
let page: Page;
let errors: string[];

before(async () => {
  if (missing) return;
  ensureWebBuilt();
  repo = await tempRepository([]);
  await mkdir(join(repo.dir, 'cached', '1'), { recursive: true });
  await writeFile(join(repo.dir, 'cached', 'config.pbtxt'), CACHED);
  await writeFile(join(repo.dir, 'cached', '1', 'model.onnx'), await readFile(new URL('../../model_repository/mlp_classifier/1/model.onnx', import.meta.url)));
  for (const [name, priority] of [['heavy_a', 1], ['heavy_b', 2]] as const) {
    await mkdir(join(repo.dir, name, '1'), { recursive: true });
    await writeFile(join(repo.dir, name, 'config.pbtxt'), heavy(name, priority));
    await writeFile(join(repo.dir, name, '1', 'model.py'), HOLD_PY);
  }
  server = await startTestServer({
    webDist: WEB_DIST, modelRepositories: [repo.dir], grpcPort: null,
    responseCache: { size: CACHE_BYTES }, rateLimit: 'execution_count', rateLimitResources: [{ name: 'accelerator', count: 1, device: null }],
  });
  ({ browser, page, errors } = await openWatchedPage({ timeoutMs: 30_000 }));
});

after(async () => {
  await browser?.close();
  await server?.close();
  await repo?.remove();
});

async function post(model: string, body: object): Promise<Response> {
  return fetch(`${server.url}/v2/models/${model}/infer`, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
}
const mlpInput = (seed: number) => ({ inputs: [{ name: 'input', datatype: 'FP32', shape: [1, 784], data: Array.from({ length: 784 }, (_, i) => ((i + seed * 31) % 97) / 97) }] });

test('Performance draws the cached model\'s hit rate and the cache fill the server reports', { skip: missing, timeout: 120_000 }, async () => {
  // 3 unique inputs, each asked 4 times: 3 misses then 9 hits, sequentially (no two in flight at once)
  for (let round = 0; round < 4; round++) {
    for (let seed = 0; seed < 3; seed++) {
      const r = await post('cached', mlpInput(seed));
      assert.equal(r.status, 200, await r.text());
    }
  }
  await page.goto(`${server.url}/?model=cached:1`);
  await page.waitForSelector('[data-testid=connection][data-status=connected]', { timeout: 20_000 });
  await page.click('[data-testid=tab-performance]');
  await page.waitForFunction(() => document.querySelector('[data-testid="cache-row-cached:1"]')?.getAttribute('data-hits') === '9', undefined, { timeout: 20_000 });
  const row = page.locator('[data-testid="cache-row-cached:1"]');
  assert.equal(await row.getAttribute('data-misses'), '3');
  assert.equal(await page.textContent('[data-testid="cache-hit-rate-cached:1"]'), '75.0%');
  // the fill: the three stored answers, as the server's statistics of the cache count them
  const fill = page.locator('[data-testid=cache-fill]');
  assert.equal(await fill.getAttribute('data-entries'), '3');
  assert.equal(await fill.getAttribute('data-capacity'), String(CACHE_BYTES));
  const used = Number(await fill.getAttribute('data-bytes'));
  assert.ok(used > 3 * 10 * 4 && used < CACHE_BYTES, `fill ${used} bytes`);
  // the same counts the statistics extension gives
  const st = (await (await fetch(`${server.url}/v2/models/cached/stats`)).json()) as { model_stats: { inference_stats: Record<string, { count: number }> }[] };
  assert.equal(st.model_stats[0].inference_stats.cache_hit.count, 9);
  assert.equal(st.model_stats[0].inference_stats.cache_miss.count, 3);
  assert.match((await fill.textContent()) ?? '', /Cache fill: .+ of 256(\.0)? KiB \(\d+\.\d%\) · 3 entries · 0 evicted/);
  await screenshot(page, 'cache-performance');

  // Data flow: hits have their own lane that leaves at the door; the queue never sees them
  await page.click('[data-testid=tab-data]');
  await page.evaluate('window.__name = window.__name || ((f) => f)');
  for (let seed = 0; seed < 3; seed++) assert.equal((await post('cached', mlpInput(seed))).status, 200);
  await page.waitForFunction(() => (window.__inferscopeLabels?.() ?? []).some((l) => /^[1-9]\d* cache hits just now: answered at the door, no queue$/.test(l.text)), undefined, { timeout: 20_000 });
  await screenshot(page, 'cache-data-flow');
  const st2 = (await (await fetch(`${server.url}/v2/models/cached/stats`)).json()) as { model_stats: { inference_stats: Record<string, { count: number }>; execution_count: number }[] };
  assert.equal(st2.model_stats[0].inference_stats.cache_hit.count, 12);

  // Live Controls: the cache switched off for this version; a repeat then runs (no hit counted)
  assert.equal(await page.isChecked('[data-testid=cache-toggle]'), true, 'the config enables it');
  await page.click('[data-testid=cache-toggle]');
  await page.waitForFunction(() => !(document.querySelector('[data-testid=cache-toggle]') as HTMLInputElement | null)?.checked, undefined, { timeout: 10_000 });
  assert.equal((await post('cached', mlpInput(0))).status, 200);
  const st3 = (await (await fetch(`${server.url}/v2/models/cached/stats`)).json()) as { model_stats: { inference_stats: Record<string, { count: number }> }[] };
  assert.equal(st3.model_stats[0].inference_stats.cache_hit.count, 12);
});

test('State draws the resource of count 1, the instance that holds it and the one that waits, waiting', { skip: missing, timeout: 120_000 }, async () => {
  const hold = join(repo.dir, 'hold');
  await writeFile(hold, '');
  const one = { inputs: [{ name: 'IN', datatype: 'FP32', shape: [1], data: [1] }] };
  const a = post('heavy_a', one);
  // heavy_a holds the accelerator (its execute waits on the file) before heavy_b asks for it
  await page.goto(`${server.url}/?model=all`);
  await page.waitForSelector('[data-testid=connection][data-status=connected]', { timeout: 20_000 });
  await page.click('[data-testid=tab-state]');
  await page.waitForFunction(() => document.querySelector('[data-testid=resource-accelerator]')?.getAttribute('data-held') === '1', undefined, { timeout: 20_000 });
  const b = post('heavy_b', one);
  await page.waitForFunction(() => /^heavy_b:1:\S+$/.test(document.querySelector('[data-testid=resource-accelerator]')?.getAttribute('data-waiting') ?? ''), undefined, { timeout: 20_000 });
  const res = page.locator('[data-testid=resource-accelerator]');
  assert.equal(await res.getAttribute('data-count'), '1');
  const holder = (await res.getAttribute('data-holders')) ?? '';
  const waiter = (await res.getAttribute('data-waiting')) ?? '';
  assert.match(holder, /^heavy_a:1:\S+$/);
  assert.equal(await page.getAttribute(`[data-testid="limited-${waiter}"]`, 'data-state'), 'waiting');
  assert.match((await page.textContent(`[data-testid="limited-${waiter}"]`)) ?? '', /^heavy_b v1 · .+: waiting for resources · priority 2 · 0 runs$/);
  assert.equal(await page.getAttribute(`[data-testid="limited-${holder}"]`, 'data-state'), 'running');
  await screenshot(page, 'rate-limiter-state');
  // Live Controls: a second accelerator lets the waiter run beside the holder
  await page.fill('[data-testid=resource-count-accelerator]', '2');
  await page.click('[data-testid=resource-count-apply-accelerator]');
  await page.waitForFunction(() => document.querySelector('[data-testid=resource-accelerator]')?.getAttribute('data-held') === '2', undefined, { timeout: 20_000 });
  assert.equal(await res.getAttribute('data-count'), '2');
  assert.equal(await res.getAttribute('data-waiting'), '');
  await rm(hold);
  assert.equal((await a).status, 200);
  assert.equal((await b).status, 200);
  // released: nobody holds or waits
  await page.waitForFunction(() => document.querySelector('[data-testid=resource-accelerator]')?.getAttribute('data-held') === '0', undefined, { timeout: 20_000 });
  assert.equal(await res.getAttribute('data-waiting'), '');
  assert.deepEqual(errors, []);
});
