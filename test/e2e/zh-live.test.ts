/**
 * The live dashboard in Chinese: the real server (real models), every view and the side panels (controls,
 * load, A/B) walked with ?lang=zh; no untranslated English (identifiers, model names and units aside), and
 * the language switch in the header turns it back into English.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { openWatchedPage, chromiumMissing, screenshot, type LaunchedBrowser } from './browser';
import { startServer, type RunningServer } from './server-under-test';
import { englishWords } from './teaching-page';

const missing = chromiumMissing();
let server: RunningServer;
let browser: LaunchedBrowser;
let page: Page;
let errors: string[];

before(async () => {
  if (missing) return;
  server = await startServer();
  ({ browser, page, errors } = await openWatchedPage({ viewport: { width: 1440, height: 900 }, timeoutMs: 30_000 }));
});

after(async () => {
  await browser?.close();
  await server?.close();
});

test('zh: every live view and panel is in Chinese; the header switch goes back to English', { skip: missing }, async () => {
  await page.goto(`${server.url}/?lang=zh&model=mlp_classifier:2`);
  await page.waitForSelector('[data-testid=connection][data-status=connected]', { timeout: 20_000 });
  assert.equal(await page.getAttribute('html', 'lang'), 'zh-CN');
  await page.click('[data-testid=load-start]');
  await page.waitForTimeout(1500);
  const found: string[] = [];
  for (const view of ['architecture', 'data', 'state', 'performance']) {
    await page.click(`[data-testid=tab-${view}]`);
    await page.waitForTimeout(400);
    for (const w of await englishWords(page)) found.push(`${view}: ${w}`);
  }
  await screenshot(page, 'zh-live-performance');
  await page.click('[data-testid=load-stop]');
  assert.deepEqual(found, []);
  await page.click('[data-testid=lang-en]');
  assert.doesNotMatch(page.url(), /lang=zh/);
  assert.equal(await page.getAttribute('html', 'lang'), 'en');
  assert.equal(await page.textContent('[data-testid=tab-data]'), 'Data flow');
});

test('no console errors on the way', { skip: missing }, () => {
  assert.deepEqual(errors, []);
});
