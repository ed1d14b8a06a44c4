/**
 * Lesson 14 "two models, one accelerator" in Chromium at 1280x720, large type, English and Chinese: the
 * claim, the knobs, the picture (each model's instance over time: busy bars, hatched waits for accel) and
 * the verdict on one screen; the limiter knob moves the picture (off: the two overlap, no one waits; on:
 * they alternate), the priority moves the turns, and the figures beside the picture and the verdict's
 * numbers are the rows'. The cache part: compute time for repeated and unique inputs, hits and misses.
 * Runs against the built dashboard on a static server (the simulator is in the page).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { chromiumMissing, screenshot } from './browser';
import { staticSuite } from './suites';
import { englishWordsIn, openLesson } from './teaching-page';

const missing = chromiumMissing();
const s = staticSuite({ viewport: { width: 1280, height: 720 }, timeoutMs: 60_000 });
const DEMO = '[data-testid=accelerator-demo]';

async function read(p: Page) {
  return p.evaluate((demo) => {
    const root = document.querySelector(demo) as HTMLElement;
    // (no named helper in here: the test's transpiler would wrap it in a function the page does not have)
    return {
      part: root.dataset.part, mode: root.dataset.mode, priority: root.dataset.priority, holds: root.dataset.claim,
      lanes: [...root.querySelectorAll('[data-testid=accel-lane]')].map((lane) => ({
        model: (lane as HTMLElement).dataset.model!,
        spans: [...lane.querySelectorAll('[data-testid=accel-span]')].map((x) => ({ state: (x as HTMLElement).dataset.state!, from: Number((x as HTMLElement).dataset.from), to: Number((x as HTMLElement).dataset.to) })),
      })),
      figures: [...root.querySelectorAll('[data-testid=accel-figure]')].map((r) => ({ ...(r as HTMLElement).dataset })),
      rows: [...root.querySelectorAll('[data-testid=accel-row]')].map((r) => ({ ...(r as HTMLElement).dataset })),
      cacheBars: [...root.querySelectorAll('[data-testid=cache-bar]')].map((r) => ({ ...(r as HTMLElement).dataset })),
      cacheFigure: { ...((root.querySelector('[data-testid=cache-figure]') as HTMLElement | null)?.dataset ?? {}) },
      cacheRows: [...root.querySelectorAll('[data-testid=cache-row]')].map((r) => ({ ...(r as HTMLElement).dataset })),
      verdict: root.querySelector('[data-testid=accelerator-verdict]')?.textContent ?? '',
      claim: document.querySelector('[data-testid=lesson-claim]')?.textContent ?? '',
    };
  }, DEMO);
}

/** the demo's prose: identifiers shown as code and verbatim names left out, as englishWords does */
async function prose(p: Page): Promise<string> {
  return p.evaluate((demo) => {
    const clone = document.querySelector(demo)!.cloneNode(true) as HTMLElement;
    clone.querySelectorAll('[data-verbatim], code').forEach((n) => n.remove());
    return clone.textContent ?? '';
  }, DEMO);
}

async function onScreen(p: Page): Promise<string[]> {
  return p.evaluate(() => ['[data-testid=lesson-claim]', '[data-testid=accelerator-demo] [role=group]', '[data-testid=accelerator-picture] .exp-bars', '[data-testid=accelerator-verdict]'].flatMap((q) => {
    const r = document.querySelector(q)?.getBoundingClientRect();
    return !r || r.width === 0 || r.bottom > innerHeight + 1 || r.right > innerWidth + 1 ? [`${q}: ${r ? `${r.top}..${r.bottom}` : 'absent'}`] : [];
  }));
}

const overlap = (lanes: { spans: { state: string; from: number; to: number }[] }[]) => {
  const [a, b] = lanes.map((l) => l.spans.filter((x) => x.state === 'busy'));
  let n = 0;
  for (const x of a!) for (const y of b!) n += Math.max(0, Math.min(x.to, y.to) - Math.max(x.from, y.from));
  return n;
};

for (const lang of ['en', 'zh'] as const) {
  test(`${lang}: two models on one accelerator, the limiter off and on, the priority's turns, the cache; the verdict is the rows'`, { skip: missing }, async () => {
    await openLesson(s.page, s.url, 'accelerator', lang, '&large=1');
    await s.page.waitForSelector(`${DEMO} [data-testid=accel-span]`, { timeout: 30_000 });
    await screenshot(s.page, `accelerator-${lang}-opened`);
    assert.deepEqual(await onScreen(s.page), [], 'claim, knob, picture and verdict on the 1280x720 screen');
    const first = await read(s.page);
    assert.match(first.claim, lang === 'zh' ? /速率限制器/ : /rate limiter/);
    assert.equal(first.part, 'limiter');
    assert.equal(first.mode, 'execution_count');
    assert.equal(first.priority, '4');
    assert.deepEqual(first.lanes.map((l) => l.model), ['vision_net', 'speech_net']);
    // limiter on: the bars alternate, never overlapping, and instances are drawn waiting for accel
    assert.equal(overlap(first.lanes), 0);
    assert.ok(first.lanes.every((l) => l.spans.some((x) => x.state === 'waiting')), 'each instance waits for accel at some point');
    const row = (mode: string, priority: string, model: string) => first.rows.find((r) => r.mode === mode && (mode === 'off' || r.priority === priority) && r.model === model)!;
    assert.equal(first.rows.length, 8);
    for (const f of first.figures) assert.equal(f.turns, row('execution_count', '4', f.model!).turns);
    const [vision, speech] = first.figures.map((f) => Number(f.turns));
    assert.ok(vision! > 2 * speech!, `priority 4: ${vision} vs ${speech} turns`);
    assert.ok(first.verdict.includes(String(vision)) && first.verdict.includes(String(speech)), first.verdict);
    assert.equal(first.holds, 'holds');
    await screenshot(s.page, `accelerator-${lang}-on-4`);

    // equal priorities: the turns are shared
    await s.page.click('[data-testid=accel-priority-1]');
    const even = await read(s.page);
    const [v1, s1] = even.figures.map((f) => Number(f.turns));
    assert.ok(Math.abs(v1! - s1!) <= 1, `${v1} vs ${s1}`);

    // off: both compute at once, nobody waits, each batch twice as long
    await s.page.click('[data-testid=accel-mode-off]');
    const off = await read(s.page);
    assert.equal(off.mode, 'off');
    assert.ok(overlap(off.lanes) > 0);
    assert.ok(off.lanes.every((l) => l.spans.every((x) => x.state === 'busy')));
    for (const f of off.figures) {
      assert.equal(f.batch, row('off', '', f.model!).batch);
      assert.ok(Number(f.batch) > 1.8 * Number(even.figures.find((e) => e.model === f.model)!.batch), `${f.model}: ${f.batch}`);
    }
    assert.ok(await s.page.isDisabled('[data-testid=accel-priority-4]'), 'the priority is ignored while off');
    await screenshot(s.page, `accelerator-${lang}-off`);
    if (lang === 'zh') assert.deepEqual(englishWordsIn(await prose(s.page)), []);

    // the cache part: compute for each run on one scale, the figures and the verdict from the rows
    await s.page.click('[data-testid=accel-part-cache]');
    await s.page.waitForSelector(`${DEMO} [data-testid=cache-bar]`);
    await screenshot(s.page, `accelerator-${lang}-cache`);
    assert.deepEqual(await onScreen(s.page), []);
    const cache = await read(s.page);
    assert.equal(cache.part, 'cache');
    assert.equal(cache.cacheBars.length, 4);
    const cRow = (inputs: string, on: string) => cache.cacheRows.find((r) => r.inputs === inputs && r.cache === on)!;
    assert.deepEqual(cache.cacheFigure, { testid: 'cache-figure', compute: cRow('repeated', 'true').compute, hits: cRow('repeated', 'true').hits, misses: cRow('repeated', 'true').misses, p50: cRow('repeated', 'true').p50 });
    const ratio = Number(cRow('repeated', 'true').compute) / Number(cRow('repeated', 'false').compute);
    assert.ok(ratio > 0.4 && ratio < 0.6, `compute ${ratio}`);
    assert.ok(cache.verdict.includes(cRow('repeated', 'true').hits!), cache.verdict);
    await s.page.click('[data-testid=cache-inputs-unique]');
    const unique = await read(s.page);
    assert.equal(unique.cacheFigure.hits, '0');
    assert.equal(unique.cacheFigure.compute, cRow('unique', 'false').compute);
    assert.equal(await s.page.getAttribute(DEMO, 'data-claim'), 'holds');
    if (lang === 'zh') assert.deepEqual(englishWordsIn(await prose(s.page)), []);
    assert.deepEqual(s.errors, []);
  });
}
