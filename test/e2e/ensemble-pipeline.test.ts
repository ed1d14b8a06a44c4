/**
 * The dashboard draws an ensemble as a pipeline: the Architecture view lists its steps in data-flow order
 * with their composing models' states and counts the step requests it sent (from the ensemble.step
 * links), and the Data view draws the pipeline row without console errors.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { openWatchedPage, chromiumMissing, screenshot, type LaunchedBrowser } from './browser';
import { ensureWebBuilt, WEB_DIST } from './server-under-test';
import { startTestServer, type TestServer } from '../support/server.ts';
import { ensembleRepository, type Fixture } from '../ensemble/fixtures.ts';

const missing = chromiumMissing();
let fx: Fixture;
let server: TestServer;
let browser: LaunchedBrowser;
let page: Page;
let errors: string[];

before(async () => {
  if (missing) return;
  ensureWebBuilt();
  fx = await ensembleRepository(['scale', 'project', 'negate', 'pipe']);
  server = await startTestServer({ modelRepositories: [fx.dir], webDist: WEB_DIST });
  ({ browser, page, errors } = await openWatchedPage());
  await page.goto(`${server.url}/?view=architecture&model=pipe:1`);
  await page.waitForSelector('[data-testid=connection][data-status=connected]', { timeout: 20_000 });
});

after(async () => {
  await browser?.close();
  await server?.close();
  await fx?.remove();
});

const infer = (x: number[]) => fetch(`${server.url}/v2/models/pipe/infer`, {
  method: 'POST', headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ inputs: [{ name: 'IN', datatype: 'FP32', shape: [2, 4], data: x }] }),
});

test('architecture: the ensemble is drawn as its pipeline, steps in data-flow order with their models', { skip: missing }, async () => {
  await page.waitForSelector('[data-testid=pipeline-pipe]', { timeout: 15_000 });
  const steps = await page.$$eval('[data-testid^=pipeline-step-pipe-]', (els) => els.map((e) => e.textContent ?? ''));
  assert.equal(steps.length, 3);
  assert.match(steps[0]!, /1\s*scale\s*READY/);
  // project reads scale's output: it sits in the column after scale; negate reads the input: first column
  const columns = await page.$$eval('[data-testid=pipeline-pipe] .pipeline-column', (cols) => cols.map((c) => c.textContent ?? ''));
  assert.equal(columns.length, 2);
  assert.match(columns[0]!, /scale.*negate/);
  assert.match(columns[1]!, /project/);
  for (let i = 0; i < 3; i++) assert.equal((await infer([i, 1, 2, 3, 4, 5, 6, 7])).status, 200);
  // the counts come from the ensemble.step events streamed to the page
  await page.waitForFunction(() => /3 sent/.test(document.querySelector('[data-testid=pipeline-step-pipe-1]')?.textContent ?? ''), null, { timeout: 15_000 });
  await screenshot(page, 'ensemble-architecture');
});

test('data flow: the pipeline row draws while requests flow, without errors', { skip: missing }, async () => {
  await page.goto(`${server.url}/?view=data&model=pipe:1`);
  await page.waitForSelector('[data-testid=chart-dataflow] canvas', { timeout: 15_000 });
  await Promise.all(Array.from({ length: 4 }, (_, i) => infer([i, 0, 0, 0, 1, 1, 1, 1])));
  // something was drawn: the canvas is not blank
  const inked = await page.$eval('[data-testid=chart-dataflow] canvas', (c) => {
    const canvas = c as HTMLCanvasElement;
    const data = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
    let n = 0;
    for (let i = 3; i < data.length; i += 4) if (data[i]! > 0) n++;
    return n;
  });
  assert.ok(inked > 1000, `pixels drawn: ${inked}`);
  await screenshot(page, 'ensemble-data-flow');
  assert.deepEqual(errors, []);
});
