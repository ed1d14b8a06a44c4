/**
 * The dashboard tells which protocol requests came in on: the real server (HTTP and gRPC on port 0), a
 * real grpc-js client built from the repository's .proto and plain HTTP requests to the same model
 * version; the Performance panel shows the counts per protocol (a refused gRPC request included) and the
 * Data view's line shows both protocols.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { openWatchedPage, chromiumMissing, screenshot, type LaunchedBrowser } from './browser';
import { ensureWebBuilt, WEB_DIST } from './server-under-test';
import { startTestServer, type TestServer } from '../support/server';
import { grpcClient, rawFp32, type TestGrpcClient } from '../grpc/client';

const missing = chromiumMissing();
const MODEL = 'mlp_classifier';
const VERSION = '2';
const KEY = `${MODEL}:${VERSION}`;
const HTTP_REQUESTS = 5;
const GRPC_REQUESTS = 3;
let server: TestServer;
let grpc: TestGrpcClient;
let browser: LaunchedBrowser;
let page: Page;
let errors: string[];

before(async () => {
  if (missing) return;
  ensureWebBuilt();
  server = await startTestServer({ webDist: WEB_DIST, grpcPort: 0, loadModels: [MODEL], modelControlMode: 'explicit' });
  grpc = grpcClient(server.grpcAddress!);
  ({ browser, page, errors } = await openWatchedPage({ timeoutMs: 30_000 }));
});

after(async () => {
  grpc?.close();
  await browser?.close();
  await server?.close();
});

const cell = (src: string) => page.getAttribute(`[data-testid="protocol-${KEY}-${src}"]`, 'data-total').then(Number);

test('the Performance panel counts requests per protocol; the Data view names both', { skip: missing }, async () => {
  await page.goto(`${server.url}/?model=${KEY}`);
  await page.waitForSelector('[data-testid=connection][data-status=connected]', { timeout: 20_000 });
  const body = JSON.stringify({ inputs: [{ name: 'input', datatype: 'FP32', shape: [1, 784], data: new Array(784).fill(0.5) }] });
  for (let i = 0; i < HTTP_REQUESTS; i++) {
    const r = await fetch(`${server.url}/v2/models/${MODEL}/versions/${VERSION}/infer`, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
    assert.equal(r.status, 200, await r.text());
  }
  const input = [{ name: 'input', datatype: 'FP32', shape: [1, 784] }];
  for (let i = 0; i < GRPC_REQUESTS; i++) {
    await grpc.call('ModelInfer', { model_name: MODEL, model_version: VERSION, inputs: input, raw_input_contents: [rawFp32(new Float32Array(784))] });
  }
  // a refused request (wrong shape) reached the model over gRPC too
  await assert.rejects(grpc.call('ModelInfer', { model_name: MODEL, model_version: VERSION, inputs: [{ name: 'input', datatype: 'FP32', shape: [1, 783] }], raw_input_contents: [rawFp32(new Float32Array(783))] }));

  await page.click('[data-testid=tab-performance]');
  await page.waitForFunction(
    // no named helper inside: the page would need tsx's __name
    ([key, h, g]) =>
      Number(document.querySelector(`[data-testid="protocol-${key}-http"]`)?.getAttribute('data-total')) === h &&
      Number(document.querySelector(`[data-testid="protocol-${key}-grpc"]`)?.getAttribute('data-total')) === g,
    [KEY, HTTP_REQUESTS, GRPC_REQUESTS + 1] as const,
    { timeout: 20_000 },
  );
  assert.equal(await cell('http'), HTTP_REQUESTS);
  assert.equal(await cell('grpc'), GRPC_REQUESTS + 1);
  assert.equal(await cell('in_process'), 0);
  const row = await page.textContent(`[data-testid="protocol-row-${KEY}"]`);
  assert.match(row ?? '', new RegExp(`^${MODEL} v${VERSION}${HTTP_REQUESTS} · [\\d.]+/s${GRPC_REQUESTS + 1} · [\\d.]+/s`));
  const headers = await page.$$eval('[data-testid=protocol-card] th', (ths) => ths.map((t) => t.textContent));
  assert.deepEqual(headers, ['model version', 'HTTP', 'gRPC', 'in process']);
  await screenshot(page, 'protocols-performance');

  // Data view: the shape legend and, while requests arrive within the last second, both protocols' rates.
  await page.click('[data-testid=tab-data]');
  assert.match((await page.textContent('[data-testid=protocol-line]')) ?? '', /● HTTP or in process\s+■ gRPC/);
  const burst = async () => {
    await Promise.all([
      ...Array.from({ length: 4 }, () => fetch(`${server.url}/v2/models/${MODEL}/versions/${VERSION}/infer`, { method: 'POST', body, headers: { 'content-type': 'application/json' } }).then((r) => r.text())),
      ...Array.from({ length: 4 }, () => grpc.call('ModelInfer', { model_name: MODEL, model_version: VERSION, inputs: input, raw_input_contents: [rawFp32(new Float32Array(784))] })),
    ]);
  };
  const end = Date.now() + 20_000;
  let rates = '';
  while (Date.now() < end) {
    await burst();
    rates = (await page.textContent('[data-testid=protocol-rates]')) ?? '';
    if (/HTTP [\d.]+\/s · gRPC [\d.]+\/s/.test(rates)) break;
    await page.waitForTimeout(150);
  }
  assert.match(rates, new RegExp(`${MODEL} v${VERSION}: HTTP [\\d.]+/s · gRPC [\\d.]+/s`));
  await screenshot(page, 'protocols-data');
});

test('no console errors on the way', { skip: missing }, () => {
  assert.deepEqual(errors, []);
});
