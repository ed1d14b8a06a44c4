/**
 * The autotuner seen in the dashboard (issue 32): switched on from Live Controls with a p99 target (a
 * setAutotune control message), then under traffic its decisions are markers on the latency chart in their
 * own colour whose hover text gives the reason (measured p99, rate, batch), and the chart draws the target
 * line. Waits on what the page publishes (data-* of the canvas), never on a timing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ConfigChangedEvent } from '@inferscope/core';
import { chromiumMissing, launchBrowser, screenshot, watchConsole } from './browser';
import { ensureWebBuilt, WEB_DIST } from './server-under-test';
import { startTestServer } from '../support/server';

const missing = chromiumMissing();
const body = JSON.stringify({ inputs: [{ name: 'input', datatype: 'FP32', shape: [1, 784], data: Array(784).fill(0.1) }] });

/** A few closed-loop senders to one version until stopped. */
function traffic(url: string, version: string): { stop(): Promise<void> } {
  let running = true;
  const worker = async () => {
    while (running) {
      const r = await fetch(`${url}/v2/models/mlp_classifier/versions/${version}/infer`, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
      await r.arrayBuffer();
    }
  };
  const all = Promise.all([1, 2, 3, 4].map(worker));
  return { stop: async () => { running = false; await all; } };
}

test('switched on in Live Controls, the tuner\'s decisions are chart markers with their reason and the target is a line', { skip: missing, timeout: 240_000 }, async () => {
  ensureWebBuilt();
  const server = await startTestServer({ webDist: WEB_DIST, modelControlMode: 'explicit', loadModels: ['mlp_classifier'] });
  const browser = await launchBrowser();
  let load: ReturnType<typeof traffic> | undefined;
  try {
    const page = await browser.newPage();
    const errors = watchConsole(page);
    await page.goto(`${server.url}/?view=performance&model=mlp_classifier:2&window=60`);
    await page.waitForSelector('[data-testid=connection][data-status=connected]', { timeout: 30_000 });
    // a generous target: on a loaded test machine a few ms can be out of reach, where the tuner rightly
    // holds the smallest delay; 200 ms lets a decision from measured traffic grow the delay
    await page.getByTestId('autotune-target').fill('200');
    await page.getByTestId('autotune-toggle').check();
    await page.waitForFunction(() => /200 ms/.test(document.querySelector('[data-testid=autotune-status]')?.textContent ?? ''), undefined, { timeout: 20_000 });
    const v2 = () => server.events.filter((e): e is ConfigChangedEvent => e.type === 'config.changed' && e.by === 'autotune' && e.version === '2');
    // the switch reached the server: the panel shows the tuner's status (the shipped 2 ms is below the
    // target, so it is kept until traffic is measured: no change yet)
    assert.match(await page.getByTestId('autotune-status').textContent() ?? '', /autotuned to p99 200 ms|target met|holding/);

    load = traffic(server.url, '2');
    const latency = '[data-testid=chart-latency] canvas';
    // the target line, and a marker for a decision made from measured traffic
    await page.waitForFunction((sel) => /p99 target 200 ms/.test((document.querySelector(sel) as HTMLCanvasElement | null)?.dataset.guides ?? ''), latency, { timeout: 60_000 });
    const measured = () => v2().filter((e) => (e.reason?.rate_per_s ?? 0) > 0);
    const end = Date.now() + 90_000;
    while (measured().length === 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 250));
    assert.ok(measured().length > 0, JSON.stringify(v2()));
    const decisions = v2().length;
    await page.waitForFunction(([sel, n]) => Number((document.querySelector(sel as string) as HTMLCanvasElement | null)?.dataset.autotuneMarkers ?? 0) >= (n as number), [latency, decisions], { timeout: 30_000 });
    await load.stop();
    load = undefined;

    // hovering the latest marker says it is the tuner's and why (read and pointed at in one task: the
    // chart scrolls with time between frames)
    const tip = await page.evaluate((sel) => {
      const c = document.querySelector(sel) as HTMLCanvasElement;
      const xs = (c.dataset.markerX ?? '').split(',').map(Number);
      const r = c.getBoundingClientRect();
      c.dispatchEvent(new MouseEvent('mousemove', { bubbles: true, clientX: r.left + xs[xs.length - 1], clientY: r.top + r.height / 2 }));
      return c.title;
    }, latency);
    // a delay move, or the preferred sizes cleared after the tuner's proposal
    assert.match(tip, /^autotune: (delay|preferred)/, tip);
    // p99 with its unit, or '–' for a window in which nothing completed yet
    assert.match(tip, /measured p99 (–|[\d.]+ ?(µs|ms|s)) at [1-9]\d*\/s, avg batch/, tip);
    // the tuner's markers are on every time chart, like a manual change
    const throughput = Number(await page.locator('[data-testid=chart-throughput] canvas').getAttribute('data-autotune-markers'));
    assert.ok(throughput >= decisions, `throughput chart: ${throughput} autotune markers of ${decisions}`);
    await screenshot(page, 'autotune-markers-target');
    assert.deepEqual(errors, []);
  } finally {
    await load?.stop();
    await browser.close();
    await server.close();
  }
});
