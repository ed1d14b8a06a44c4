/**
 * Every "Show me" (misconceptions) and "Show the answer" (interview) button opens the lesson and the place
 * that shows its point, on screen: an experiment's chart switched to the table named (a bigger batch is
 * always faster -> the MLP vs CNN table, not table 1), or the view, checker or knob named, scrolled into
 * the viewport. Once from another lesson, and once more while the lesson is already open.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { chromiumMissing } from './browser';
import { staticSuite } from './suites';
import { openLesson } from './teaching-page';
import { DISPROOF } from '../../apps/web/src/teach/Misconceptions';
import { SHOWN_BY } from '../../apps/web/src/teach/Interview';
import type { LessonLink } from '../../apps/web/src/teach/lesson-links';

const missing = chromiumMissing();
const s = staticSuite({ viewport: { width: 1280, height: 720 }, timeoutMs: 60_000 });

/** Where the link's target is on the screen, or why it is not shown. */
async function shown(page: Page, link: LessonLink): Promise<string | undefined> {
  await page.waitForSelector(`[data-testid=teaching-panel][data-lesson=${link.lesson}]`);
  if (link.target.startsWith('exp-')) {
    const table = link.target.slice(4);
    await page.waitForSelector(`[data-testid=experiment-chart][data-table=${table}]`, { timeout: 60_000 });
  } else {
    await page.waitForSelector(`[data-testid=${link.target}][data-focused]`, { state: 'attached', timeout: 30_000 });
  }
  await page.waitForTimeout(300); // the scroll settles
  const sel = link.target.startsWith('exp-') ? '[data-testid=experiment-chart]' : `[data-testid=${link.target}]`;
  return page.evaluate((sel) => {
    const r = document.querySelector(sel)!.getBoundingClientRect();
    const seen = Math.min(r.bottom, innerHeight) - Math.max(r.top, 0);
    return seen >= Math.min(120, r.height) ? undefined : `${sel} at ${Math.round(r.top)}..${Math.round(r.bottom)} is off the ${innerHeight} px screen`;
  }, sel);
}

async function press(page: Page, panel: string, button: string): Promise<void> {
  await page.evaluate((panel) => {
    const d = document.querySelector(`[data-testid=${panel}]`) as HTMLDetailsElement;
    d.open = true;
  }, panel);
  await page.click(`[data-testid=${button}]`);
}

const CARDS: [string, string, string, LessonLink][] = [
  ...Object.entries(DISPROOF).map(([id, link]) => ['misconceptions', `myth-${id}-show`, id, link] as [string, string, string, LessonLink]),
  ...Object.entries(SHOWN_BY).map(([id, link]) => ['interview', `question-${id}-show`, id, link] as [string, string, string, LessonLink]),
];

test('every Show me opens the lesson on the point it makes, from another lesson and within its own', { skip: missing, timeout: 400_000 }, async () => {
  const problems: string[] = [];
  for (const [panel, button, id, link] of CARDS) {
    // from another lesson (the course demo has no experiment: every link loads its lesson)
    await openLesson(s.page, s.url, 'course', 'en', '&large=1');
    await press(s.page, panel, button);
    const away = await shown(s.page, link);
    if (away) problems.push(`${id} from another lesson: ${away}`);
    // again with its lesson open (and an experiment's chart on another table)
    if (link.target.startsWith('exp-') && (await s.page.locator('[data-testid=experiment-tabs]').count())) await s.page.click('[data-testid=experiment-tabs] button >> nth=0');
    await s.page.evaluate(() => window.scrollTo(0, 0));
    await s.page.evaluate(() => document.querySelectorAll('[data-focused]').forEach((e) => e.removeAttribute('data-focused')));
    await press(s.page, panel, button);
    const within = await shown(s.page, link);
    if (within) problems.push(`${id} within its lesson: ${within}`);
  }
  assert.deepEqual(problems, []);
  assert.deepEqual(s.errors, []);
});
