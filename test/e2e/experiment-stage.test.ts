/**
 * Each lesson's proof on the main stage: the experiment's chart sits in the view column (not the side
 * panel), opens on the claim's metric, redraws when the metric knob moves, marks the row the lesson knob
 * is set to (and follows it), keeps the tables folded under it; the teacher's calibration pin says which
 * calibration is in use; teaching charts span the run, not its last 10%.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { chromiumMissing, launchBrowser, type LaunchedBrowser } from './browser';
import { serveStatic } from './static-server';
import { ensureWebBuilt, WEB_DIST } from './server-under-test';
import { openLesson } from './teaching-page';
import { LESSONS } from '../../apps/web/src/teach/lessons';

const missing = chromiumMissing();
let web: { url: string; close(): Promise<void> };
let browser: LaunchedBrowser | undefined;

before(async () => {
  if (missing) return;
  ensureWebBuilt();
  web = await serveStatic(WEB_DIST);
  browser = await launchBrowser({ width: 1280, height: 720 });
});
after(async () => {
  await browser?.close();
  await web?.close();
});

const bars = (page: import('playwright-core').Page) => page.$$eval('[data-testid=experiment-chart] [data-testid=exp-bar]', (els) => els.map((e) => ({ value: Number(e.getAttribute('data-value')), current: e.getAttribute('data-current') === '1' })));

test('every lesson with an experiment shows it as a chart on the main stage, the tables folded', { skip: missing }, async () => {
  const page = await browser!.newPage();
  try {
    for (const lesson of LESSONS.filter((l) => l.experiment)) {
      await openLesson(page, web.url, lesson.id, 'en', '&large=1');
      assert.equal(await page.locator('.layout > main [data-testid=experiment-chart]').count(), 1, `${lesson.id}: chart in the main column`);
      assert.equal(await page.locator('.layout > aside [data-testid=experiment]').count(), 0, `${lesson.id}: not in the side panel`);
      const b = await bars(page);
      assert.ok(b.length >= 2 && b.every((x) => x.value > 0), `${lesson.id}: bars with values`);
      assert.equal(await page.locator('[data-testid=experiment-tables]').getAttribute('open'), null, `${lesson.id}: tables folded`);
      assert.ok((await page.textContent('[data-testid=experiment-verdict]'))!.length > 20);
    }
  } finally {
    await page.close();
  }
});

test('the metric knob redraws the bars; the instance knob moves the marked row', { skip: missing }, async () => {
  const page = await browser!.newPage();
  try {
    await openLesson(page, web.url, 'batching', 'en');
    assert.equal(await page.getAttribute('[data-testid=experiment-chart]', 'data-metric'), 'throughput');
    const before = await bars(page);
    await page.click('[data-testid=exp-metric-p99]');
    assert.equal(await page.getAttribute('[data-testid=experiment-chart]', 'data-metric'), 'p99');
    assert.notDeepEqual(await bars(page), before);
    // the MLP vs CNN table: three groups of off/on side by side, a legend naming the two
    await page.click('[data-testid=experiment-tab-bound]');
    assert.equal(await page.locator('[data-testid=exp-group]').count(), 3);
    assert.equal(await page.locator('[data-testid=exp-legend] li').count(), 2);

    await openLesson(page, web.url, 'concurrency', 'en');
    const marked = async () => (await bars(page)).findIndex((x) => x.current);
    assert.equal(await marked(), 0, 'one instance at the start');
    await page.click('[data-testid=knob-plus]');
    await page.waitForFunction(() => document.querySelector('[data-testid=exp-bar][data-current="1"]')?.getAttribute('data-row') === '1');
  } finally {
    await page.close();
  }
});

test("lesson 3: the delay knob between the tables' rows adds a row at its value, marked", { skip: missing }, async () => {
  const page = await browser!.newPage();
  try {
    await openLesson(page, web.url, 'batching', 'en');
    await page.click('[data-testid=experiment-tab-delay]');
    assert.equal((await bars(page)).length, 2, 'delay 0 and 2 ms');
    await page.locator('[data-testid=knob-delay]').fill('1000');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=experiment-chart] [data-testid=exp-bar]').length === 3, undefined, { timeout: 30_000 });
    const b = await bars(page);
    assert.deepEqual(b.map((x) => x.current), [false, true, false], 'the 1 ms row sits between 0 and 2 ms, marked');
    assert.ok(b[0].value < b[1].value && b[1].value < b[2].value, `mean batch grows with the delay: ${b.map((x) => x.value).join(', ')}`);
    assert.equal(await page.locator('[data-testid=exp-delay] [data-testid=exp-delay-row]').count(), 3, 'the folded table has the row too');
  } finally {
    await page.close();
  }
});

test('the calibration pin says which calibration the lessons use and re-runs the experiment', { skip: missing }, async () => {
  const page = await browser!.newPage();
  try {
    await openLesson(page, web.url, 'batching', 'zh');
    // the shipped calibration is pinned by default; this server's is an opt-in that says what it lacks
    assert.equal(await page.getAttribute('[data-testid=calibration-source]', 'data-source'), 'bundled');
    assert.equal(await page.getAttribute('[data-testid=calibration-source]', 'data-pin'), 'shipped');
    await page.selectOption('[data-testid=calibration-pin]', 'server');
    assert.equal(await page.getAttribute('[data-testid=calibration-source]', 'data-pin'), 'server');
    assert.match((await page.textContent('[data-testid=calibration-source]'))!, /本服务器还没有标定/);
    await page.waitForSelector('[data-testid=experiment][data-state=done]');
    assert.match(page.url(), /cal=server/);
    await page.selectOption('[data-testid=calibration-pin]', 'shipped');
    assert.equal(await page.getAttribute('[data-testid=calibration-source]', 'data-pin'), 'shipped');
    assert.doesNotMatch(page.url(), /cal=/);
  } finally {
    await page.close();
  }
});

test('a teaching chart spans the run: the data fills the window, not its right edge', { skip: missing }, async () => {
  const page = await browser!.newPage();
  try {
    await openLesson(page, web.url, 'operations', 'en');
    await page.click('[data-testid=teach-play]');
    await page.waitForTimeout(1500);
    await page.click('[data-testid=teach-pause]');
    await page.waitForTimeout(300);
    const t = await page.evaluate(() => window.__inferscopeDataNowUs!());
    const canvas = '[data-testid=chart-throughput] canvas';
    const span = Number(await page.getAttribute(canvas, 'data-span-s'));
    const windowS = Number(await page.getAttribute(canvas, 'data-window-s'));
    assert.ok(t > 200_000, `played ${t} µs`);
    assert.ok(span * 1e6 >= 0.7 * t, `points span ${span} s of a ${t / 1e6} s run`);
    assert.ok(span >= 0.6 * windowS, `the data fills ${span} s of the ${windowS} s window`);
  } finally {
    await page.close();
  }
});
