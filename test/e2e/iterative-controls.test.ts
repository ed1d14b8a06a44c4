/**
 * Live Controls of an iterative model, in the browser against the real server (port 0) serving
 * tiny_lm_generate: they show continuous batching's knobs (not the dynamic batcher's delay, preferred sizes
 * and instances), a change is applied and the input follows the live config, a refused value is answered
 * with the load's reason and goes back to the live one; at 1280x720 with large type, in English and
 * Chinese, the controls fit and the Chinese page has no untranslated English.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { openWatchedPage, chromiumMissing, screenshot, type LaunchedBrowser } from './browser';
import { ensureWebBuilt, WEB_DIST } from './server-under-test';
import { layoutProblems } from './layout-check';
import { englishWordsIn } from './teaching-page';
import { startTestServer, tempRepository, type TestServer } from '../support/server';

const missing = chromiumMissing();
const MODEL = 'tiny_lm_generate';
/** the server, its repository and the watched page, once started */
const env: { server?: TestServer; repo?: { remove(): Promise<void> }; browser?: LaunchedBrowser; page?: Page; errors?: string[] } = {};
const server = () => env.server!;
const page = () => env.page!;

before(async () => {
  if (missing) return;
  ensureWebBuilt();
  const repo = (env.repo = await tempRepository([MODEL]));
  env.server = await startTestServer({ webDist: WEB_DIST, modelRepositories: [repo.dir], grpcPort: null, memoryBudget: { cpu: 512 * 1024 * 1024 } });
  Object.assign(env, await openWatchedPage({ viewport: { width: 1280, height: 720 }, timeoutMs: 30_000 }));
});

after(async () => {
  await env.browser?.close();
  await env.server?.close();
  await env.repo?.remove();
});

const parameter = async (key: string): Promise<string | undefined> => {
  const config = (await (await fetch(`${server().url}/v2/models/${MODEL}/config`)).json()) as { parameters?: Record<string, { string_value?: string }> };
  return config.parameters?.[key]?.string_value;
};

async function open(lang: string): Promise<void> {
  await page().goto(`${server().url}/?model=${MODEL}:1&large=1&lang=${lang}`);
  await page().waitForSelector('[data-testid=connection][data-status=connected]', { timeout: 20_000 });
  await page().waitForSelector('[data-testid=iterative-controls]', { timeout: 20_000 });
}

test('an iterative model\'s Live Controls change its knobs live, and refuse a KV budget under one sequence with the reason', { skip: missing, timeout: 120_000 }, async () => {
  await open('en');
  assert.equal(await page().locator('[data-testid=delay-input]').count(), 0, 'not the dynamic batcher\'s controls');
  assert.equal(await page().locator('[data-testid=instances-plus]').count(), 0);
  assert.equal(await page().inputValue('[data-testid=knob-max_num_sequences-input]'), '8', 'the value the config loaded with');

  await page().fill('[data-testid=knob-max_num_sequences-input]', '3');
  await page().click('[data-testid=knob-max_num_sequences-apply]');
  await page().waitForFunction(() => /setIterativeKnobs.*max_num_sequences/.test(document.querySelector('[data-testid=ack-applied]')?.textContent ?? ''), undefined, { timeout: 20_000 });
  assert.equal(await parameter('max_num_sequences'), '3');

  await page().selectOption('[data-testid=knob-batch_scheduler_policy-input]', 'max_utilization');
  await page().waitForFunction(() => (document.querySelector('[data-testid=knob-batch_scheduler_policy-input]') as HTMLSelectElement | null)?.value === 'max_utilization' && document.querySelectorAll('[data-testid=ack-applied]').length >= 2, undefined, { timeout: 20_000 });
  assert.equal(await parameter('batch_scheduler_policy'), 'max_utilization');

  await page().click('[data-testid=knob-enable_chunked_context-input]');
  await page().waitForFunction(() => (document.querySelector('[data-testid=knob-enable_chunked_context-input]') as HTMLInputElement | null)?.checked === true, undefined, { timeout: 20_000 });
  assert.equal(await parameter('enable_chunked_context'), 'true');

  await page().fill('[data-testid=knob-max_tokens_in_paged_kv_cache-input]', '64');
  await page().click('[data-testid=knob-max_tokens_in_paged_kv_cache-apply]');
  await page().waitForSelector('[data-testid=ack-refused]', { timeout: 20_000 });
  assert.match((await page().textContent('[data-testid=ack-refused]')) ?? '', /max_tokens_in_paged_kv_cache.*caps the KV cache: .*less than one sequence's maximum of 256 tokens/);
  await page().waitForFunction(() => (document.querySelector('[data-testid=knob-max_tokens_in_paged_kv_cache-input]') as HTMLInputElement | null)?.value === '4096', undefined, { timeout: 10_000 });
  assert.equal(await parameter('max_tokens_in_paged_kv_cache'), '4096', 'nothing changed');

  // a stream after the changes is served whole
  const res = await fetch(`${server().url}/v2/models/${MODEL}/generate`, { method: 'POST', body: JSON.stringify({ text_input: 'after the knobs', max_tokens: 8 }) });
  assert.equal(res.status, 200, await res.clone().text());
  const controls = await page().locator('[data-testid=controls]').boundingBox();
  assert.ok(controls && controls.width > 0);
  const problems = (await layoutProblems(page())).filter((p) => /knob-|iterative/.test(p));
  assert.deepEqual(problems, []);
  await screenshot(page(), 'iterative-controls-en');
  assert.deepEqual(env.errors, []);
});

test('in Chinese the iterative controls are translated (config names kept as written) and fit at 1280x720 large type', { skip: missing, timeout: 60_000 }, async () => {
  await open('zh');
  const text = await page().evaluate(() => {
    const clone = document.querySelector('[data-testid=iterative-controls]')!.cloneNode(true) as HTMLElement;
    clone.querySelectorAll('[data-verbatim]').forEach((n) => n.remove());
    return clone.textContent ?? '';
  });
  assert.match(text, /连续批处理/);
  assert.deepEqual(englishWordsIn(text), []);
  assert.deepEqual((await layoutProblems(page())).filter((p) => /knob-|iterative/.test(p)), []);
  await screenshot(page(), 'iterative-controls-zh');
});
