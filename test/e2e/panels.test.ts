/**
 * The Performance view as a Triton user reads it: one series per model version with a legend, a marker
 * on every time chart after a config change, and after a reload the charts show the past minutes at once
 * (backfilled from the snapshot's history, not re-accumulated second by second).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chromiumMissing, launchBrowser, screenshot, watchConsole } from './browser';
import { ensureWebBuilt, WEB_DIST } from './server-under-test';
import { startTestServer } from '../support/server';
import { connectSocket } from '../support/socket';
import { traffic } from './traffic';

const missing = chromiumMissing();
const TIME_CHARTS = ['chart-throughput', 'chart-latency', 'chart-queue-compute', 'chart-avg-batch', 'chart-pending', 'chart-failures', 'chart-cpu', 'chart-memory'];

test('per-version series with a legend, config markers on every time chart, backfill after reload', { skip: missing, timeout: 240_000 }, async () => {
  ensureWebBuilt();
  const server = await startTestServer({ webDist: WEB_DIST, modelControlMode: 'explicit', loadModels: ['mlp_classifier'] });
  const load = traffic(server.url);
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage();
    const errors = watchConsole(page);
    await page.goto(`${server.url}/?view=performance&window=60`);
    await page.waitForSelector('[data-testid=connection][data-status=connected]', { timeout: 30_000 });
    const canvas = (id: string) => page.locator(`[data-testid=${id}] canvas`);
    await page.waitForFunction(() => {
      const c = document.querySelector('[data-testid=chart-throughput] canvas') as HTMLCanvasElement | null;
      return !!c?.dataset.legend?.includes('mlp_classifier v1') && c.dataset.legend.includes('mlp_classifier v2');
    }, undefined, { timeout: 60_000 });
    assert.deepEqual((await canvas('chart-throughput').getAttribute('data-legend'))?.split(' | ').sort(), ['mlp_classifier v1', 'mlp_classifier v2']);
    assert.deepEqual((await canvas('chart-latency').getAttribute('data-legend'))?.split(' | ').sort(), ['mlp_classifier v1', 'mlp_classifier v2']);

    // A config change from another client: every time chart marks it.
    const ctl = await connectSocket(server.url);
    const ack = await ctl.timeout(10_000).emitWithAck('control', { action: 'setDynamicBatching', model: 'mlp_classifier', version: '1', max_queue_delay_microseconds: 4000 });
    ctl.close();
    assert.equal(ack.ok, true, JSON.stringify(ack));
    for (const id of TIME_CHARTS) {
      await page.waitForFunction((sel) => Number((document.querySelector(sel) as HTMLCanvasElement | null)?.dataset.markers ?? 0) >= 1, `[data-testid=${id}] canvas`, { timeout: 30_000 });
    }
    // let a few seconds of history accumulate on the server, then stop traffic and reload
    await page.waitForFunction(() => Number((document.querySelector('[data-testid=chart-throughput] canvas') as HTMLCanvasElement).dataset.spanS) >= 6, undefined, { timeout: 60_000 });
    await load.stop();
    await screenshot(page, 'panels-before-reload');
    await page.reload();
    await page.waitForSelector('[data-testid=connection][data-status=connected]', { timeout: 30_000 });
    await page.waitForFunction(() => (document.querySelector('[data-testid=chart-throughput] canvas') as HTMLCanvasElement | null)?.dataset.spanS !== undefined, undefined, { timeout: 30_000 });
    // Without backfill a fresh page can hold at most as many seconds of data as it has been open.
    const { spanS, openS, markers, legend } = await page.evaluate(() => {
      const c = document.querySelector('[data-testid=chart-throughput] canvas') as HTMLCanvasElement;
      return { spanS: Number(c.dataset.spanS), openS: performance.now() / 1000, markers: Number(c.dataset.markers), legend: c.dataset.legend ?? '' };
    });
    assert.ok(spanS >= 5 && spanS > openS + 1, `after reload the chart holds ${spanS} s of data, the page is open ${openS.toFixed(1)} s`);
    assert.ok(markers >= 1, 'the config change marker survives the reload');
    assert.match(legend, /mlp_classifier v2/);
    await screenshot(page, 'panels-after-reload');
    assert.deepEqual(errors, []);
  } finally {
    await load.stop();
    await browser.close();
    await server.close();
  }
});

test('A/B takes any patch, plots both runs and warns when other traffic hits the model', { skip: missing, timeout: 240_000 }, async () => {
  ensureWebBuilt();
  const server = await startTestServer({ webDist: WEB_DIST, modelControlMode: 'explicit', loadModels: ['mlp_classifier'] });
  const browser = await launchBrowser();
  let other: ReturnType<typeof traffic> | undefined;
  try {
    const page = await browser.newPage();
    const errors = watchConsole(page);
    await page.goto(`${server.url}/?view=performance&model=mlp_classifier:2`);
    await page.waitForSelector('[data-testid=connection][data-status=connected]', { timeout: 30_000 });
    await page.fill('[data-testid=load-panel] input[type=number] >> nth=0', '50'); // rate
    await page.fill('[data-testid=load-panel] input[type=number] >> nth=2', '2'); // duration, s
    await page.getByTestId('ab-a').fill('delay=0 instances=1');
    await page.getByTestId('ab-b').fill('delay=2000 preferred=8 max_batch=16');
    await page.getByTestId('ab-rounds').fill('2');
    other = traffic(server.url); // v1 and v2: v2 is the compared model, so the warning must show
    await page.getByRole('button', { name: /Run A then B/ }).click();
    await page.getByTestId('ab-table').waitFor({ timeout: 120_000 });
    await other.stop();
    assert.equal(await page.locator('.layout > main [data-testid=ab-table]').count(), 1, 'the result on the main stage, not in the side panel');
    const legend = (await page.locator('[data-testid=ab-chart] canvas').getAttribute('data-legend')) ?? '';
    assert.match(legend, /A \(delay=0 instances=1\) \| B \(delay=2000 preferred=8 max_batch=16\)/);
    assert.match((await page.getByTestId('ab-warning').first().textContent()) ?? '', /requests from other clients/);
    assert.equal(await page.locator('[data-testid=ab-chart] canvas').getAttribute('data-axes'), 'inferences/s | p99 latency', 'p99 on its own latency scale');
    // two interleaved rounds: each figure shows its range, and a value is bold only where the verdict names its side
    assert.equal(await page.getByTestId('ab-table').getAttribute('data-rounds'), '2');
    const table = await page.evaluate(() => [...document.querySelectorAll('[data-testid=ab-table] tr[data-metric]')].map((tr) => ({
      metric: tr.getAttribute('data-metric'),
      cells: [...tr.querySelectorAll('td[data-rounds-values]')].map((td) => ({ text: td.textContent ?? '', bold: td.classList.contains('font-bold'), values: td.getAttribute('data-rounds-values') })),
    })));
    const verdicts = await page.evaluate(() => Object.fromEntries([...document.querySelectorAll('[data-testid=ab-verdicts] li')].map((li) => [li.getAttribute('data-metric'), li.getAttribute('data-better')])));
    assert.equal(table.length, 4);
    const labels = ['A (delay=0 instances=1)', 'B (delay=2000 preferred=8 max_batch=16)'];
    for (const row of table) {
      assert.equal(row.metric! in verdicts, true, `${row.metric} has a verdict`);
      row.cells.forEach((c, i) => {
        assert.equal(c.values?.split(',').length, 2, `${row.metric}: one value per round`);
        assert.match(c.text, /\(.+–.+\)/, `${row.metric}: median (min–max)`);
        assert.equal(c.bold, verdicts[row.metric!] === labels[i], `${row.metric}: bold exactly where the verdict names the side`);
      });
    }
    // restored: the touched fields are back at v2's loaded values
    const v2 = server.built.manager.list().find((m) => m.name === 'mlp_classifier' && m.version === '2')!;
    const cfg = v2.config as { max_batch_size: number; dynamic_batching: { max_queue_delay_microseconds: number; preferred_batch_size: number[] } };
    assert.deepEqual([cfg.max_batch_size, cfg.dynamic_batching.max_queue_delay_microseconds, cfg.dynamic_batching.preferred_batch_size, v2.instances.length], [64, 2000, [8, 16, 32], 2]);
    await screenshot(page, 'ab-patch');
    assert.deepEqual(errors, []);
  } finally {
    await other?.stop();
    await browser.close();
    await server.close();
  }
});
