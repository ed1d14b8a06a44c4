/**
 * Projector sizes: at 1280x720 and 1920x1080, with large type, in English and Chinese, every lesson view
 * lays out without overflow, overlap or clipping (layout-check.ts), including the data-flow canvas labels.
 * Screenshots of each go to test/output/screenshots for review.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { chromiumMissing, launchBrowser, screenshot, type LaunchedBrowser } from './browser';
import { serveStatic } from './static-server';
import { ensureWebBuilt, WEB_DIST } from './server-under-test';
import { layoutProblems } from './layout-check';
import { openLesson } from './teaching-page';

const missing = chromiumMissing();
let web: { url: string; close(): Promise<void> };

before(() => {
  if (missing) return;
  ensureWebBuilt();
  return serveStatic(WEB_DIST).then((w) => {
    web = w;
  });
});
after(() => web?.close());

/** lesson, view, extra link settings (delay 2 ms: the batcher shows its wait countdown; 3 instances: more lanes) */
const CASES: [string, string, string][] = [
  ['course', 'data', ''],
  ['batching', 'data', ''], ['batching', 'data', '&delay=2000'], ['concurrency', 'architecture', '&inst=3'], ['concurrency', 'state', '&inst=3'], ['operations', 'performance', ''],
];

for (const [width, height] of [[1280, 720], [1920, 1080]] as const) {
  test(`${width}x${height}, large type: no overflow, overlap or clipping in en and zh`, { skip: missing }, async () => {
    let browser: LaunchedBrowser | undefined;
    const problems: string[] = [];
    try {
      browser = await launchBrowser({ width, height });
      const page = await browser.newPage();
      page.setDefaultTimeout(60_000);
      for (const lang of ['en', 'zh']) {
        for (const [lesson, view, extra] of CASES) {
          await openLesson(page, web.url, lesson, lang, `&large=1&view=${view}${extra}`);
          await page.click('[data-testid=teach-play]');
          await page.waitForTimeout(800);
          await page.click('[data-testid=teach-pause]');
          await page.waitForTimeout(200);
          for (const p of await layoutProblems(page)) problems.push(`${lang} ${lesson}/${view}: ${p}`);
          // the side panel scrolls: its lower part (experiment tables) must fit too
          await page.evaluate(() => document.querySelector('.layout > aside')?.scrollTo(0, 1e6));
          for (const p of await layoutProblems(page)) problems.push(`${lang} ${lesson}/${view} (panel scrolled): ${p}`);
          await screenshot(page, `layout-${width}-${lang}-${lesson}-${view}${extra.replace(/[&=]/g, '-')}`);
        }
      }
    } finally {
      await browser?.close();
    }
    assert.deepEqual([...new Set(problems)], []);
  });
}
