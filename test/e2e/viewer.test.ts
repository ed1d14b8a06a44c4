/**
 * A server with a control token: a browser without it is a read-only viewer (sees live data, controls
 * disabled with a note, a token field); entering the token makes it a controller.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { openWatchedPage, chromiumMissing, screenshot, type LaunchedBrowser } from './browser';
import { startServer, type RunningServer } from './server-under-test';

const missing = chromiumMissing();
const TOKEN = 'e2e-secret-token';
let server: RunningServer;
let browser: LaunchedBrowser;
let page: Page;
let errors: string[];

before(async () => {
  if (missing) return;
  server = await startServer({ controlToken: TOKEN });
  ({ browser, page, errors } = await openWatchedPage());
  await page.goto(`${server.url}/?model=mlp_classifier:2`);
  await page.waitForSelector('[data-testid=connection][data-status=connected]', { timeout: 20_000 });
});

after(async () => {
  await browser?.close();
  await server?.close();
});

test('without the token the page is a viewer: everything visible, nothing changeable', { skip: missing }, async () => {
  await page.waitForSelector('[data-testid=viewer-note]');
  assert.equal(await page.isDisabled('[data-testid=delay-slider]'), true);
  assert.equal(await page.isDisabled('[data-testid=delay-input]'), true);
  assert.equal(await page.isDisabled('[data-testid=instances-plus]'), true);
  assert.equal(await page.isDisabled('[data-testid=load-start]'), true);
  await page.waitForSelector('[data-testid=model-mlp_classifier]');
  await page.waitForSelector('[data-testid=token-form]');
  await screenshot(page, 'viewer');
});

test('entering the token makes the page a controller', { skip: missing }, async () => {
  await page.fill('[data-testid=token-form] input', TOKEN);
  await page.click('[data-testid=token-form] button');
  await page.waitForSelector('[data-testid=viewer-note]', { state: 'detached', timeout: 15_000 });
  assert.equal(await page.isDisabled('[data-testid=delay-input]'), false);
  await page.fill('[data-testid=delay-input]', '3000');
  await page.waitForSelector('[data-testid=ack-applied]', { timeout: 10_000 });
  const cfg = (await (await fetch(`${server.url}/v2/models/mlp_classifier/versions/2/config`)).json()) as { dynamic_batching: { max_queue_delay_microseconds: number } };
  assert.equal(Number(cfg.dynamic_batching.max_queue_delay_microseconds), 3000);
  assert.deepEqual(errors, []);
});
