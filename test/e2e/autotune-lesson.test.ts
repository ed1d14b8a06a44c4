/**
 * The autotuning lesson in Chromium, in English and Chinese: the picture shows the uneven day per phase,
 * static delay vs autotuned, with the target line; moving the static delay changes the static bars (and
 * only those), moving the target changes the tuned ones and the line. At 3 ms the tuned bars stay under
 * the line in every phase. Runs against the built dashboard on a static server (the simulator is in the page).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { chromiumMissing, screenshot } from './browser';
import { staticSuite } from './suites';
import { englishWords, openLesson } from './teaching-page';

const missing = chromiumMissing();
const s = staticSuite({ viewport: { width: 1280, height: 720 }, timeoutMs: 60_000 });

const DEMO = '[data-testid=autotune-demo]';
async function picture(p: Page) {
  await p.waitForSelector(`${DEMO}[data-ready=true]`, { timeout: 60_000 });
  const read = (a: string) => p.getAttribute(DEMO, a).then((v) => v ?? '');
  const nums = (s: string) => s.split(',').map(Number);
  return {
    fixed: nums(await read('data-fixed-p99')), tuned: nums(await read('data-tuned-p99')),
    fixedCompute: Number(await read('data-fixed-compute')), tunedCompute: Number(await read('data-tuned-compute')),
    line: await p.textContent(`[data-testid=autotune-p99] [data-testid=autotune-target-line]`),
    verdict: await p.textContent('[data-testid=autotune-verdict]'),
  };
}

for (const lang of ['en', 'zh'] as const) {
  test(`${lang}: the same day, static vs autotuned; the knobs move the picture`, { skip: missing }, async () => {
    await openLesson(s.page, s.url, 'autotune', lang, '&large=1');
    const first = await picture(s.page);
    assert.equal(first.fixed.length, 3);
    assert.equal(first.tuned.length, 3);
    for (const p99 of first.tuned) assert.ok(p99 <= 3000, `autotuned at 3 ms: ${first.tuned}`);
    assert.ok(first.tunedCompute < first.fixedCompute, `${first.tunedCompute} vs ${first.fixedCompute}`);
    assert.match(first.line ?? '', /3 ms/);
    // large type: the picture's labels are at least 16 px
    const sizes = await s.page.$$eval(`${DEMO} span, ${DEMO} p, ${DEMO} figcaption`, (els) => els.map((e) => parseFloat(getComputedStyle(e).fontSize)));
    assert.ok(Math.min(...sizes) >= 16, `smallest label ${Math.min(...sizes)} px`);

    await s.page.click('[data-testid=autotune-delay-8000]');
    const longer = await picture(s.page);
    assert.notDeepEqual(longer.fixed, first.fixed);
    assert.deepEqual(longer.tuned, first.tuned, 'the autotuned side does not depend on the static knob');
    assert.ok(longer.fixed[0] > 3000, `8 ms when quiet: ${longer.fixed}`);
    assert.notEqual(longer.verdict, first.verdict);

    await s.page.click('[data-testid="autotune-target-1.2"]');
    const tight = await picture(s.page);
    assert.notDeepEqual(tight.tuned, first.tuned);
    assert.match(tight.line ?? '', /1\.2 ms/);
    // the takeaway is chosen by the bars: the tuner's claim only where it held the target in every phase
    const takeaway = await s.page.textContent('[data-testid=autotune-takeaway]') ?? '';
    const tunedHeld = tight.tuned.every((p99) => p99 <= 1200);
    const claim = lang === 'zh' ? /没有哪个延迟能管一整天/ : /No single delay is right all day/;
    if (tunedHeld) assert.match(takeaway, claim);
    else assert.doesNotMatch(takeaway, claim);
    if (lang === 'zh') assert.deepEqual(await englishWords(s.page), []);
    await screenshot(s.page, `autotune-lesson-${lang}`);
  });
}

test('no console errors on the way', { skip: missing }, () => {
  assert.deepEqual(s.errors, []);
});
