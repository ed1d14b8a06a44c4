/**
 * The tuning loop tells the truth (issue 35): one target for the controls and the load (picked in Live
 * Controls, named on the Start button, where the traffic goes); a finished run shows the server's own
 * figures for the run (never the 0.00 of the server's latest second); save names the versions the one
 * config.pbtxt governs and what another version will run after a restart.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { io, type Socket } from 'socket.io-client';
import type { Page } from 'playwright-core';
import type { Frame } from '@inferscope/core';
import { openWatchedPage, chromiumMissing, screenshot, type LaunchedBrowser } from './browser';
import { startServer, type RunningServer } from './server-under-test';

const missing = chromiumMissing();
let server: RunningServer;
let browser: LaunchedBrowser;
let page: Page;
let errors: string[];
let watcher: Socket;
const queued = new Map<string, number>();

before(async () => {
  if (missing) return;
  server = await startServer();
  watcher = io(server.url, { transports: ['websocket'] });
  watcher.on('frame', (f: Frame) => {
    for (const e of f.events) if (e.type === 'request.queued') queued.set(`${e.model}:${e.version}`, (queued.get(`${e.model}:${e.version}`) ?? 0) + 1);
  });
  ({ browser, page, errors } = await openWatchedPage({ timeoutMs: 30_000 }));
  await page.goto(`${server.url}/`);
  await page.waitForSelector('[data-testid=connection][data-status=connected]', { timeout: 20_000 });
});

after(async () => {
  watcher?.close();
  await browser?.close();
  await server?.close();
});

test('the model picked in Live Controls is the one Start names and the one the load goes to', { skip: missing, timeout: 120_000 }, async () => {
  await page.waitForSelector('[data-testid=target-select]');
  await page.selectOption('[data-testid=target-select]', 'cnn_classifier:1');
  const label = (await page.textContent('[data-testid=load-start]')) ?? '';
  assert.match(label, /cnn_classifier/, label);
  assert.match(label, /1/, label);
  await page.fill('[data-testid=load-panel] input[type=number] >> nth=0', '20');
  await page.fill('[data-testid=load-panel] input[type=number] >> nth=2', '1');
  queued.clear();
  await page.click('[data-testid=load-start]');
  // the run's own server figures, frozen once it is done, with its request count
  const end = Date.now() + 60_000;
  const finished = () => server.app.live!.load.progress().find((p) => p.model === 'cnn_classifier' && p.state === 'done');
  while (!finished() && Date.now() < end) await new Promise((r) => setTimeout(r, 200));
  const done = finished();
  assert.ok(done, JSON.stringify(server.app.live!.load.progress()));
  assert.ok(done.server && done.server.requests === done.sent && done.server.latency_us.p99 > 0, JSON.stringify(done));
  await page.waitForFunction((n) => (document.querySelector('[data-testid=load-server-requests]')?.textContent ?? '').includes(`${n} requests`), done.sent, { timeout: 20_000 });
  assert.ok(!/0\.00 \/ 0\.00/.test((await page.textContent('[data-testid=load-figures]')) ?? ''), 'server figures of the run, not of the latest second');
  assert.equal([...queued.keys()].filter((k) => !k.startsWith('cnn_classifier:')).length, 0, JSON.stringify([...queued]));
  await screenshot(page, 'tuning-one-target');
});

test('save says which versions share the file and what the other runs after a restart', { skip: missing, timeout: 60_000 }, async () => {
  await page.selectOption('[data-testid=target-select]', 'mlp_classifier:1');
  await page.fill('[data-testid=delay-input]', '4321');
  const end = Date.now() + 20_000;
  const applied = async () => ((await (await fetch(`${server.url}/v2/models/mlp_classifier/versions/1/config`)).json()) as { dynamic_batching?: { max_queue_delay_microseconds?: number | string } }).dynamic_batching?.max_queue_delay_microseconds;
  while (Number(await applied()) !== 4321 && Date.now() < end) await new Promise((r) => setTimeout(r, 200));
  assert.equal(Number(await applied()), 4321, 'the delay reached the picked version');
  await page.click('[data-testid=save-preview]');
  await page.waitForSelector('[data-testid=save-versions]', { timeout: 20_000 });
  const note = (await page.textContent('[data-testid=save-versions]')) ?? '';
  assert.match(note, /versions 1, 2/, note);
  assert.match(note, /v2 runs dynamic_batching\.max_queue_delay_microseconds = 4321/, note);
  const diff = (await page.textContent('[data-testid=save-diff] pre')) ?? '';
  assert.match(diff, /@@/, diff);
  await screenshot(page, 'tuning-save-versions');
  assert.deepEqual(errors, []);
});
