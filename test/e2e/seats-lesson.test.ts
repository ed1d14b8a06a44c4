/**
 * Lesson 13 "a conversation keeps its seat" in Chromium, in English and Chinese: the one picture on the
 * main stage (two slot lanes with the id holding each slot over time, the backlog lanes of the ids that
 * waited), the knobs (strategy, max_sequence_idle_microseconds) re-draw it, and the verdict's numbers are
 * the table's rows beside it. Runs against the built dashboard on a static server (the simulator is in the page).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { chromiumMissing, screenshot } from './browser';
import { staticSuite } from './suites';
import { englishWordsIn, openLesson } from './teaching-page';

const missing = chromiumMissing();
const s = staticSuite({ viewport: { width: 1280, height: 720 }, timeoutMs: 60_000 });
const DEMO = '[data-testid=seats-demo]';

async function picture(p: Page) {
  return p.evaluate((demo) => {
    const root = document.querySelector(demo) as HTMLElement;
    return {
      strategy: root.dataset.strategy, idle: Number(root.dataset.idle), wait: Number(root.dataset.backlogWait), nulls: Number(root.dataset.nulls), claim: root.dataset.claim,
      // (no named helper in here: the test's transpiler would wrap it in a function the page does not have)
      slots: [...root.querySelectorAll('[data-testid=seats-slot]')].map((lane) => [...lane.querySelectorAll('[data-testid=seats-hold]')].map((h) => (h as HTMLElement).dataset.id!)),
      backlog: [...root.querySelectorAll('[data-testid=seats-backlog] [data-testid=seats-hold]')].map((h) => (h as HTMLElement).dataset.id!),
      rows: [...root.querySelectorAll('[data-testid=seats-row]')].map((r) => ({ ...(r as HTMLElement).dataset })),
      verdict: root.querySelector('[data-testid=seats-verdict]')?.textContent ?? '',
    };
  }, DEMO);
}

for (const lang of ['en', 'zh'] as const) {
  test(`${lang}: the slots over time and the backlog; the knobs move the picture; the verdict is the rows'`, { skip: missing }, async () => {
    await openLesson(s.page, s.url, 'seats', lang, '&large=1');
    await s.page.waitForSelector(`${DEMO} [data-testid=seats-hold]`, { timeout: 30_000 });
    // on a projector's screen (1280x720, large type) the knobs, the picture and the verdict show without scrolling
    const bottom = await s.page.$eval('[data-testid=seats-verdict]', (e) => e.getBoundingClientRect().bottom);
    assert.ok(bottom <= 721, `the verdict ends at ${bottom}px`);
    const first = await picture(s.page);
    assert.equal(first.strategy, 'direct');
    assert.equal(first.idle, 20_000);
    // two slots; conversation 1 sits on slot #0 (quiet, never ends), the others pass through slot #1
    assert.equal(first.slots.length, 2);
    assert.deepEqual(first.slots[0], ['1']);
    assert.deepEqual(first.slots[1], ['2', '3', '4', '5', '6', '7', '8']);
    assert.deepEqual(first.backlog, ['3', '4', '5', '6', '7', '8']);
    assert.equal(first.rows.length, 6);
    const row = (strategy: string, idle: number) => first.rows.find((r) => r.strategy === strategy && Number(r.idle) === idle)!;
    assert.equal(Number(row('direct', 20_000).wait), first.wait);
    assert.equal(first.claim, 'holds');
    assert.ok(first.nulls > 0);
    await screenshot(s.page, `seats-${lang}-direct-20ms`);

    // a short idle timeout gives the quiet seat back: conversations also take slot #0, the backlog waits less
    await s.page.click('[data-testid=seats-idle-5000]');
    const short = await picture(s.page);
    assert.equal(short.idle, 5000);
    assert.ok(short.slots[0]!.length > 1 && short.slots[0]![0] === '1', `slot #0: ${short.slots[0]}`);
    assert.ok(short.wait < first.wait, `${short.wait} < ${first.wait}`);
    assert.equal(short.wait, Number(row('direct', 5000).wait));

    // oldest: no null requests
    await s.page.click('[data-testid=seats-strategy-oldest]');
    const oldest = await picture(s.page);
    assert.equal(oldest.strategy, 'oldest');
    assert.equal(oldest.nulls, 0);
    // the verdict names the numbers of the rows: direct's null requests at this timeout, oldest's 0
    assert.ok(oldest.verdict.includes(String(row('direct', 5000).nulls)), oldest.verdict);
    // the lesson's own text (the view under it is walked by teaching.test.ts)
    if (lang === 'zh') assert.deepEqual(englishWordsIn((await s.page.textContent(DEMO)) ?? ''), []);
  });
}
