/**
 * The live dashboard in Chinese: the real server (real models), every view and the side panels (controls,
 * load, A/B) walked with ?lang=zh; no untranslated English (identifiers, model names and units aside), and
 * the language switch in the header turns it back into English.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chromiumMissing, screenshot } from './browser';
import { liveSuite } from './suites';
import { englishWords } from './teaching-page';

const missing = chromiumMissing();
const s = liveSuite();

test('zh: every live view and panel is in Chinese; the header switch goes back to English', { skip: missing }, async () => {
  await s.page.goto(`${s.server.url}/?lang=zh&model=mlp_classifier:2`);
  await s.page.waitForSelector('[data-testid=connection][data-status=connected]', { timeout: 20_000 });
  assert.equal(await s.page.getAttribute('html', 'lang'), 'zh-CN');
  await s.page.click('[data-testid=load-start]');
  await s.page.waitForTimeout(1500);
  const found: string[] = [];
  for (const view of ['architecture', 'data', 'state', 'performance']) {
    await s.page.click(`[data-testid=tab-${view}]`);
    await s.page.waitForTimeout(400);
    for (const w of await englishWords(s.page)) found.push(`${view}: ${w}`);
  }
  await screenshot(s.page, 'zh-live-performance');
  await s.page.click('[data-testid=load-stop]');
  assert.deepEqual(found, []);
  await s.page.click('[data-testid=lang-en]');
  assert.doesNotMatch(s.page.url(), /lang=zh/);
  assert.equal(await s.page.getAttribute('html', 'lang'), 'en');
  assert.equal(await s.page.textContent('[data-testid=tab-data]'), 'Data flow');
});

test('no console errors on the way', { skip: missing }, () => {
  assert.deepEqual(s.errors, []);
});
