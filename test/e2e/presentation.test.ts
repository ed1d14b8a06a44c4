/**
 * The presentation layout (issue 53): at 1280x720 with large type, in English and Chinese, every lesson
 * opens with its claim, its knob (where it has one), its picture and its verdict (where it has one) inside
 * the viewport, without scrolling, and never on an empty chart: the charts have data ("Waiting for the
 * first statistics…" is drawn nowhere), the experiment has its bars, the streaming demo has tokens.
 * Runs on the real server so the streaming lesson streams from the bundled token_streamer.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { chromiumMissing, screenshot } from './browser';
import { liveSuite } from './suites';
import { openLesson } from './teaching-page';
import { canvasText, clearCanvasText, recordCanvasText } from './text-sizes';
import { LESSONS, type Lesson } from '../../apps/web/src/teach/lessons';
import { en } from '../../apps/web/src/i18n/en';
import { zh } from '../../apps/web/src/i18n/zh';

const missing = chromiumMissing();
const s = liveSuite({ viewport: { width: 1280, height: 720 }, timeoutMs: 60_000 });
let recording: Promise<void> | undefined;

/** The lesson's own control, where it has one. */
const KNOB: Record<NonNullable<Lesson['knob']>, string> = {
  delay: '[data-testid=lesson-knob]', instances: '[data-testid=lesson-knob]', course: '[data-testid=course-delay]',
  stream: '[data-testid=streaming-start]', autotune: '[data-testid=autotune-demo] [role=group]', seats: '[data-testid=seats-demo] [role=group]',
  accelerator: '[data-testid=accelerator-demo] [role=group]',
  rebuild: '[data-testid=rebuild-demo] [role=group]', kvlimit: '[data-testid=kvlimit-demo] [role=group]', chunked: '[data-testid=chunked-demo] [role=group]',
};
/** The picture when the lesson has no experiment or demo of its own: its view's first chart or grid. */
const VIEW_PICTURE: Record<Lesson['view'], string> = {
  architecture: '[data-testid=view-architecture] .arch-grid', data: '[data-testid=chart-dataflow] canvas',
  state: '[data-testid=view-state] > *', performance: '[data-testid=view-performance] canvas',
};

function parts(l: Lesson): { claim: string; knob?: string; picture: string; verdict?: string } {
  const claim = '[data-testid=lesson-claim]';
  const knob = l.knob && KNOB[l.knob];
  if (l.experiment) return { claim, knob, picture: '[data-testid=experiment-chart] .exp-bars', verdict: '[data-testid=experiment-verdict]' };
  if (l.knob === 'course') return { claim, knob, picture: '[data-testid=course-lane-naive]', verdict: '[data-testid=course-verdict]' };
  if (l.knob === 'autotune') return { claim, knob, picture: '[data-testid=autotune-p99] .exp-bars', verdict: '[data-testid=autotune-takeaway]' };
  if (l.knob === 'stream') return { claim, knob, picture: '[data-testid=streaming-run] svg' };
  if (l.knob === 'seats') return { claim, knob, picture: '[data-testid=seats-picture] .exp-bars', verdict: '[data-testid=seats-verdict]' };
  if (l.knob === 'accelerator') return { claim, knob, picture: '[data-testid=accelerator-picture] .exp-bars', verdict: '[data-testid=accelerator-verdict]' };
  if (l.knob === 'rebuild' || l.knob === 'kvlimit' || l.knob === 'chunked') return { claim, knob, picture: `[data-testid=${l.knob}-demo] [data-testid=gen-picture]`, verdict: `[data-testid=${l.knob}-demo] [data-testid=gen-verdict]` };
  return { claim, knob, picture: VIEW_PICTURE[l.view] };
}

/** Where each part is, or why it is not on the screen. */
async function offScreen(page: Page, sel: Record<string, string | undefined>): Promise<string[]> {
  return page.evaluate((sel) => {
    const out: string[] = [];
    for (const [part, q] of Object.entries(sel)) {
      if (!q) continue;
      const e = document.querySelector(q);
      if (!e) {
        out.push(`${part}: ${q} is absent`);
        continue;
      }
      const r = e.getBoundingClientRect();
      const where = `${Math.round(r.left)},${Math.round(r.top)}..${Math.round(r.right)},${Math.round(r.bottom)}`;
      if (r.width === 0 || r.height === 0) out.push(`${part}: ${q} has no size`);
      else if (r.left < -1 || r.right > innerWidth + 1 || r.top < -1) out.push(`${part} at ${where} leaves the ${innerWidth}x${innerHeight} screen`);
      // the picture may run past the bottom edge (a view's charts go on), but a real part of it shows;
      // the claim, the knob and the verdict are whole
      else if (part === 'picture' ? Math.min(r.bottom, innerHeight) - r.top < Math.min(200, r.height) : r.bottom > innerHeight + 1) out.push(`${part} at ${where} is below the fold of ${innerHeight}`);
    }
    return out;
  }, sel);
}

for (const lang of ['en', 'zh'] as const) {
  test(`${lang}: every lesson at 1280x720 in large type shows its claim, knob, picture and verdict on one screen, never an empty chart`, { skip: missing, timeout: 240_000 }, async () => {
    await (recording ??= recordCanvasText(s.browser.context));
    const waiting = [en.waitingForStats, zh.waitingForStats];
    const problems: string[] = [];
    for (const lesson of LESSONS) {
      await openLesson(s.page, s.url, lesson.id, lang, '&large=1');
      if (lesson.knob === 'autotune') await s.page.waitForSelector('[data-testid=autotune-demo][data-ready=true]');
      if (lesson.knob === 'stream') await s.page.waitForFunction(() => Number(document.querySelector('[data-testid=streaming-run]')?.getAttribute('data-tokens')) >= 2, undefined, { timeout: 30_000 });
      await clearCanvasText(s.page);
      await s.page.waitForTimeout(500); // a few frames drawn as opened, without pressing play
      for (const p of await offScreen(s.page, parts(lesson))) problems.push(`${lesson.id}: ${p}`);
      const drawn = (await canvasText(s.page)).map((t) => t.text).join(' ');
      const dom = await s.page.textContent('body');
      for (const w of waiting) if (drawn.includes(w) || dom?.includes(w)) problems.push(`${lesson.id}: opens on an empty chart ("${w}")`);
      if (lesson.view === 'performance' && !lesson.experiment && !/\d/.test(drawn)) problems.push(`${lesson.id}: the charts drew no figures`);
      await screenshot(s.page, `presentation-${lang}-${lesson.chapter}-${lesson.id}`);
    }
    assert.deepEqual(problems, []);
    assert.deepEqual(s.errors, []);
  });
}
