/**
 * Many series at once: with six model versions serving, a time chart's legend names the first few and
 * "+N more" (the lines stay visible), a click lists every series with data and a second click folds it
 * again. At 1440x900 and 1280x800 the side panel and each of its panels fit their width (nothing scrolls
 * sideways), with the ack log, the load runs and their figures filled in.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chromiumMissing, launchBrowser, screenshot, watchConsole } from './browser';
import { ensureWebBuilt, WEB_DIST } from './server-under-test';
import { startTestServer } from '../support/server';
import { connectSocket } from '../support/socket';

const missing = chromiumMissing();
// four runs (the server's most at once); the ensemble's run also serves its two steps
const SERVED = [['mlp_classifier', '1'], ['mlp_classifier', '2'], ['text_encoder', '1'], ['image_pipeline', '1']] as const;

test('a crowded legend folds into "+N more" and opens on click; the side panel never overflows', { skip: missing, timeout: 240_000 }, async () => {
  ensureWebBuilt();
  const server = await startTestServer({ webDist: WEB_DIST, modelControlMode: 'explicit', loadModels: ['mlp_classifier', 'text_encoder', 'image_pipeline'] });
  const browser = await launchBrowser({ width: 1440, height: 900 });
  const ctl = await connectSocket(server.url);
  try {
    const page = await browser.newPage();
    const errors = watchConsole(page);
    await page.goto(`${server.url}/?view=performance&model=all`);
    await page.waitForSelector('[data-testid=connection][data-status=connected]', { timeout: 30_000 });
    // the ensemble's steps serve too: image_pipeline, image_preprocess, cnn_classifier -> six versions with traffic
    for (const [model, version] of SERVED) {
      const ack = await ctl.timeout(20_000).emitWithAck('control', { action: 'startLoad', model, version, scenario: 'steady', rate: 8, duration: 60 });
      assert.equal(ack.ok, true, `${model}:${version} ${JSON.stringify(ack)}`);
    }
    const canvas = '[data-testid=chart-throughput] canvas';
    const read = () => page.evaluate((sel) => {
      const c = document.querySelector(sel) as HTMLCanvasElement;
      return { legend: (c.dataset.legend ?? '').split(' | ').filter(Boolean), more: Number(c.dataset.legendMore ?? 0) };
    }, canvas);
    await page.waitForFunction((sel) => Number((document.querySelector(sel) as HTMLCanvasElement).dataset.legendMore ?? 0) >= 1, canvas, { timeout: 90_000 });
    const folded = await read();
    assert.equal(folded.legend.length, 4, `the first four are named: ${folded.legend.join(', ')}`);
    await screenshot(page, 'legend-folded');

    await page.click(canvas);
    await page.waitForFunction((sel) => (document.querySelector(sel) as HTMLCanvasElement).dataset.legendMore === '0', canvas, { timeout: 10_000 });
    const open = await read();
    assert.ok(open.legend.length >= folded.legend.length + folded.more, `opened: ${open.legend.join(', ')}`);
    assert.equal(await page.locator(canvas).getAttribute('aria-expanded'), 'true');
    await screenshot(page, 'legend-open');
    await page.click(canvas);
    await page.waitForFunction((sel) => Number((document.querySelector(sel) as HTMLCanvasElement).dataset.legendMore ?? 0) >= 1, canvas, { timeout: 10_000 });

    for (const size of [{ width: 1440, height: 900 }, { width: 1280, height: 800 }]) {
      await page.setViewportSize(size);
      await page.waitForTimeout(300); // one layout pass
      const over = await page.evaluate(() => {
        const aside = document.querySelector('.layout > aside') as HTMLElement | null;
        if (!aside) return ['no side panel'];
        return [aside, ...aside.querySelectorAll<HTMLElement>('.card, fieldset, ul, table')]
          .filter((e) => e.scrollWidth > e.clientWidth + 1)
          .map((e) => {
            // name what sticks out, so a failure says where to look
            const edge = e.getBoundingClientRect().left + e.clientWidth;
            const out = [...e.querySelectorAll<HTMLElement>('*')].filter((c) => c.getBoundingClientRect().right > edge + 1).slice(0, 3)
              .map((c) => `${c.tagName.toLowerCase()}.${c.className} "${(c.textContent ?? '').slice(0, 40)}" to ${Math.round(c.getBoundingClientRect().right - edge)} px past`);
            return `${e.tagName.toLowerCase()}${e.dataset.testid ? `[${e.dataset.testid}]` : ''}: ${e.scrollWidth} > ${e.clientWidth} (${out.join('; ')})`;
          });
      });
      assert.deepEqual(over, [], `at ${size.width}x${size.height} nothing in the side panel is wider than its box`);
    }
    await ctl.timeout(10_000).emitWithAck('control', { action: 'stopLoad' });
    assert.deepEqual(errors, []);
  } finally {
    ctl.close();
    await browser.close();
    await server.close();
  }
});
