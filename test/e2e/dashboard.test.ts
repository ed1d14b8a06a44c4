/**
 * End to end: the real server (real models, real load generator) and the built dashboard in Debian's
 * Chromium. Each view renders live data; the delay slider changes the server's config (GET .../config and
 * the next batch.formed events); a refused change shows its error; teaching mode steps; no console errors.
 * Screenshots of every view go to test/output/screenshots for review.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { io, type Socket } from 'socket.io-client';
import type { Page } from 'playwright-core';
import type { BatchFormedEvent, Frame } from '@inferscope/core';
import { openWatchedPage, chromiumMissing, screenshot, type LaunchedBrowser } from './browser';
import { startServer, type RunningServer } from './server-under-test';

const missing = chromiumMissing();
const MODEL = 'mlp_classifier';
// The load generator sends to the model's latest ready version (no version in startLoad), so watch that one.
const VERSION = '2';
let server: RunningServer;
let browser: LaunchedBrowser;
let page: Page;
let errors: string[];
let watcher: Socket;
const formed: { at: number; e: BatchFormedEvent }[] = [];

const counters = () => page.evaluate(() => window.__inferscopeCounters!());

/**
 * Polls `check` until it holds. Each check is raced against the time left (page.evaluate has no timeout
 * of its own: a page whose main thread never comes back must fail this wait, not hang the file).
 */
async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const expired = new Promise<false>((r) => { timer = setTimeout(() => r(false), Math.max(0, end - Date.now())); });
    const ok = await Promise.race([check(), expired]).finally(() => clearTimeout(timer));
    if (ok) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}

before(async () => {
  if (missing) return;
  server = await startServer();
  // A plain socket client watches the same stream, to see batch.formed events independently of the page.
  watcher = io(server.url, { transports: ['websocket'] });
  watcher.on('frame', (f: Frame) => {
    for (const e of f.events) if (e.type === 'batch.formed' && e.model === MODEL && e.version === VERSION) formed.push({ at: Date.now(), e });
  });
  // Every page action fails after 30 s rather than waiting on a starved renderer for ever.
  ({ browser, page, errors } = await openWatchedPage({ timeoutMs: 30_000 }));
  await page.goto(`${server.url}/?model=${MODEL}:${VERSION}`);
  await page.waitForSelector('[data-testid=connection][data-status=connected]', { timeout: 20_000 });
});

after(async () => {
  // Stop the traffic first so closing the server does not wait on a stream of in-flight requests.
  if (watcher?.connected) await watcher.timeout(5000).emitWithAck('control', { action: 'stopLoad' }).catch(() => undefined);
  watcher?.close();
  await browser?.close();
  await server?.close();
});

test('the load panel starts traffic and the server acknowledges it', { skip: missing }, async () => {
  // 150 req/s is plenty for every live view and for delay-triggered batches, and leaves the (2-core)
  // machine enough CPU for the browser: at 400 the page itself starved and its tests took minutes.
  await page.fill('[data-testid=load-panel] input[type=number] >> nth=0', '150');
  await page.fill('[data-testid=load-panel] input[type=number] >> nth=2', '300');
  await page.click('[data-testid=load-start]');
  await page.waitForSelector('[data-testid=ack-applied]', { timeout: 10_000 });
  await waitFor('events and stats flowing', async () => {
    const c = await counters();
    return c.events > 200 && c.stats > 1;
  });
  // the run sends from its own thread and shows its send lag next to the server's figures; the header
  // shows the server's event-loop delay
  await page.waitForSelector('[data-testid=send-lag]', { timeout: 15_000 });
  assert.match((await page.textContent('[data-testid=load-generator]')) ?? '', /own thread/);
  await waitFor('event-loop delay in the header', async () => /loop p99 \d/.test((await page.textContent('[data-testid=event-loop-delay]')) ?? ''));
});

for (const view of ['architecture', 'data', 'state', 'performance'] as const) {
  test(`the ${view} view renders live data`, { skip: missing }, async () => {
    await page.click(`[data-testid=tab-${view}]`);
    await page.waitForSelector(`[data-testid=view-${view}]`);
    const before = await counters();
    await waitFor('more events', async () => (await counters()).events > before.events + 50);
    if (view === 'architecture') {
      await page.waitForSelector(`[data-testid=model-${MODEL}]`);
      await waitFor('device memory label', async () => ((await page.textContent('.mem-label')) ?? '').includes('/'));
    }
    if (view === 'data' || view === 'state' || view === 'performance') {
      // canvases are drawn (not blank): some pixel differs from the first one
      const drawn = await page.evaluate(() => [...document.querySelectorAll('main canvas')].map((c) => {
        const cv = c as HTMLCanvasElement;
        const d = cv.getContext('2d')!.getImageData(0, 0, cv.width, cv.height).data;
        for (let i = 4; i < d.length; i += 4) if (d[i] !== d[0] || d[i + 1] !== d[1] || d[i + 2] !== d[2] || d[i + 3] !== d[3]) return true;
        return false;
      }));
      assert.ok(drawn.length > 0 && drawn.every(Boolean), `every chart draws something: ${JSON.stringify(drawn)}`);
    }
    if (view === 'state') assert.ok((await counters()).timeline > 0, 'instance timeline has batches');
    if (view === 'performance') await waitFor("Little's law numbers", async () => ((await page.textContent('[data-testid=little-card]')) ?? '').includes('in flight'));
    await page.waitForTimeout(600);
    await screenshot(page, `live-${view}`);
  });
}

test('moving the delay slider changes the server config and the next batches', { skip: missing }, async () => {
  const target = 6000;
  await page.fill('[data-testid=delay-input]', String(target));
  await waitFor('the change acknowledged', async () => ((await page.textContent('[data-testid=ack-log]')) ?? '').includes(`max_queue_delay_microseconds ${target}`) && (await page.locator('[data-testid=ack-applied]').count()) >= 2);
  const appliedAt = Date.now();
  const res = await fetch(`${server.url}/v2/models/${MODEL}/versions/${VERSION}/config`);
  const cfg = (await res.json()) as { dynamic_batching: { max_queue_delay_microseconds: number } };
  assert.equal(Number(cfg.dynamic_batching.max_queue_delay_microseconds), target);
  // Batches formed after the change that were sent because the delay expired waited the NEW delay.
  const summary = () => {
    const recent = formed.filter((f) => f.at > appliedAt + 200);
    const by: Record<string, number> = {};
    for (const f of recent) by[f.e.trigger] = (by[f.e.trigger] ?? 0) + 1;
    return `${formed.length} batches seen, after the change: ${JSON.stringify(by)}`;
  };
  await waitFor('delay-triggered batches under the new setting', async () => formed.some((f) => f.at > appliedAt + 200 && f.e.trigger === 'delay'), 20_000).catch((err) => {
    throw new Error(`${(err as Error).message}: ${summary()}`);
  });
  const later = formed.filter((f) => f.at > appliedAt + 200 && f.e.trigger === 'delay');
  assert.ok(later.every((f) => f.e.oldest_wait_us >= target * 0.95), `oldest waits ${later.map((f) => f.e.oldest_wait_us).join(',')}`);
  await page.click('[data-testid=tab-state]');
  await page.waitForTimeout(800);
  await screenshot(page, 'live-after-delay-change');
});

test('save shows the diff of config.pbtxt first (dry run, nothing written)', { skip: missing }, async () => {
  await page.click('[data-testid=save-preview]');
  const diff = page.locator('[data-testid=save-diff]');
  await diff.waitFor({ timeout: 10_000 });
  assert.match((await diff.textContent()) ?? '', /max_queue_delay_microseconds/);
  await screenshot(page, 'live-save-diff');
  await page.click('[data-testid=save-diff] >> text=Cancel');
  await diff.waitFor({ state: 'detached' });
});

test('recording live traffic is acknowledged with where it goes', { skip: missing }, async () => {
  const applied = await page.locator('[data-testid=ack-applied]').count();
  await page.click('[data-testid=record-start]');
  await waitFor('the recording acknowledged', async () => (await page.locator('[data-testid=ack-applied]').count()) > applied);
  const text = (await page.locator('[data-testid=ack-applied]').first().textContent()) ?? '';
  assert.match(text, /startRecording/);
  await page.click('text=Stop recording');
  await waitFor('the stop acknowledged', async () => ((await page.locator('[data-testid=ack-log] li').first().textContent()) ?? '').includes('stopRecording'));
  // the file it wrote is offered for replay
  await waitFor('the recording offered for replay', async () => /\.ndjson$/.test(await page.getByTestId('trace-input').inputValue()));
});

test('a refused change shows the server error and changes nothing', { skip: missing }, async () => {
  const beforeCfg = await (await fetch(`${server.url}/v2/models/${MODEL}/versions/${VERSION}/config`)).json();
  await page.fill('[data-testid=preferred-input]', '4096');
  await page.click('[data-testid=preferred-apply]');
  const refused = page.locator('[data-testid=ack-refused]').first();
  await refused.waitFor({ timeout: 10_000 });
  const text = (await refused.textContent()) ?? '';
  assert.match(text, /preferred|max_batch_size/i, text);
  const afterCfg = await (await fetch(`${server.url}/v2/models/${MODEL}/versions/${VERSION}/config`)).json();
  assert.deepEqual(afterCfg.dynamic_batching, beforeCfg.dynamic_batching);
  await screenshot(page, 'live-refused');
});

test('dark mode and large type render', { skip: missing }, async () => {
  await page.click('[data-testid=tab-performance]');
  await page.click('[data-testid=theme-toggle]');
  assert.equal(await page.evaluate(() => document.documentElement.classList.contains('dark')), true);
  assert.match(page.url(), /theme=dark/);
  await page.waitForTimeout(800);
  await screenshot(page, 'live-performance-dark');
  await page.click('[data-testid=theme-toggle]');
});

test('teaching mode runs the simulator in the page and single-steps', { skip: missing }, async () => {
  // The live checks are done: stop the server's traffic so the in-page simulator does not share two cores
  // with a load generator, a server and the live charts it feeds.
  await watcher.timeout(10_000).emitWithAck('control', { action: 'stopLoad' });
  await page.click('[data-testid=mode-teach]');
  await page.selectOption('[data-testid=lesson-select]', 'batching');
  await page.waitForSelector('[data-testid=teach-step]:not([disabled])');
  const eventsText = () => page.textContent('[data-testid=teach-events]');
  const n0 = Number((await eventsText())!.split('/')[0]);
  await page.click('[data-testid=teach-step]');
  await page.click('[data-testid=teach-step]');
  await page.click('[data-testid=teach-step]');
  const n1 = Number((await eventsText())!.split('/')[0]);
  assert.equal(n1, n0 + 3, 'three steps apply three scheduler events');
  await page.click('[data-testid=teach-play]');
  // playback runs on the page's frames: on a loaded machine it is slower, never stuck, so wait for progress
  await page.waitForFunction((from) => Number(document.querySelector('[data-testid=teach-events]')?.textContent?.split('/')[0]) > from + 20, n1, { timeout: 30_000 });
  await page.click('[data-testid=teach-pause]');
  const n2 = Number((await eventsText())!.split('/')[0]);
  assert.ok(n2 > n1 + 20, `playing advances the simulation (${n1} -> ${n2})`);
  await page.waitForTimeout(300);
  assert.equal(Number((await eventsText())!.split('/')[0]), n2, 'pause stops the simulation');
  assert.match(page.url(), /mode=teach/);
  assert.match(page.url(), /lesson=batching/);
  await page.waitForSelector('[data-testid=experiment][data-state=done]', { timeout: 30_000 });
  await screenshot(page, 'teach-data');
  await page.click('[data-testid=tab-performance]');
  await page.waitForTimeout(600);
  await screenshot(page, 'teach-performance');
});

test('teaching lesson 5: adding instances hits the memory budget and is refused with the reason', { skip: missing }, async () => {
  await page.selectOption('[data-testid=lesson-select]', 'concurrency');
  await page.waitForSelector('[data-testid=teach-play]:not([disabled])');
  await page.click('[data-testid=teach-play]');
  for (let i = 0; i < 6 && (await page.locator('[data-testid=ack-refused]').count()) === 0; i++) {
    await page.click('[data-testid=instances-plus]');
    await page.waitForTimeout(300);
  }
  const refused = (await page.locator('[data-testid=ack-refused]').first().textContent()) ?? '';
  assert.match(refused, /memory budget exceeded/);
  assert.equal(await page.textContent('[data-testid=instances-count]'), '4');
  await page.click('[data-testid=teach-pause]');
  await page.click('[data-testid=tab-architecture]');
  await page.evaluate(() => window.scrollTo(0, 0));
  await screenshot(page, 'teach-memory-budget');
});

test('no console errors on the way', { skip: missing }, async () => {
  await fetch(`${server.url}/v2/health/live`); // the server is still up
  assert.deepEqual(errors, []);
});
