/**
 * Lessons 15-17 (the batch is rebuilt every step; memory, not compute, is the limit; long prompts stall
 * everyone) in Chromium at 1280x720 with large type, in English and Chinese: each opens with its claim,
 * its knob, its one picture (the token timeline, the KV block map) and its verdict on one screen; the
 * knobs re-draw the picture, and the verdict's numbers are the folded table's rows; the picture follows the
 * stage header's playback (pause freezes it, step shows one more step, restart takes it back to nothing
 * shown, play runs it) while the verdict stays the whole runs'. Runs against the built dashboard on a
 * static server (core's iterative scheduler runs in the page).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { chromiumMissing, screenshot } from './browser';
import { staticSuite } from './suites';
import { englishWordsIn, openLesson } from './teaching-page';

const missing = chromiumMissing();
const s = staticSuite({ viewport: { width: 1280, height: 720 }, timeoutMs: 60_000 });

/** The demo's state, its picture's rows, the verdict and the table's rows, read from the page. */
async function read(p: Page, demo: string) {
  return p.evaluate((demo) => {
    const root = document.querySelector(`[data-testid=${demo}-demo]`) as HTMLElement;
    // (no named helper in here: the test's transpiler would wrap it in a function the page does not have)
    return {
      data: { ...root.dataset },
      claim: document.querySelector('[data-testid=lesson-claim]')?.textContent ?? '',
      claimBottom: document.querySelector('[data-testid=lesson-claim]')?.getBoundingClientRect().bottom ?? Infinity,
      knobs: root.querySelectorAll('[role=group] button').length,
      pressed: [...root.querySelectorAll('[role=group] button[aria-pressed=true]')].map((b) => b.textContent),
      timeline: [...root.querySelectorAll('[data-testid=token-timeline-row]')].map((r) => ({ ...(r as HTMLElement).dataset }) as Record<string, string>),
      blocks: (root.querySelector('[data-testid=kv-block-map]') as HTMLElement | null)?.dataset ?? null,
      longestStep: Number((root.querySelector('[data-testid=chunked-step-times]') as HTMLElement | null)?.dataset.longest),
      verdict: root.querySelector('[data-testid=gen-verdict]')?.textContent ?? '',
      shown: root.querySelector('[data-testid=gen-shown]')?.textContent ?? '',
      picture: root.querySelector('[data-testid=gen-picture]')?.innerHTML ?? '',
      time: document.querySelector('[data-testid=teach-time]')?.textContent ?? '',
      verdictBottom: root.querySelector('[data-testid=gen-verdict]')?.getBoundingClientRect().bottom ?? Infinity,
      pictureTop: root.querySelector('[data-testid=gen-picture]')?.getBoundingClientRect().top ?? Infinity,
      cost: root.querySelector('[data-testid=gen-cost]')?.textContent ?? '',
      rows: [...root.querySelectorAll('[data-testid=gen-row]')].map((r) => ({ ...(r as HTMLElement).dataset }) as Record<string, string>),
      text: root.textContent ?? '',
    };
  }, demo);
}

/** claim, knob, picture and verdict on the screen without scrolling; the zh demo carries no English prose */
function onOneScreen(r: Awaited<ReturnType<typeof read>>, lang: string) {
  assert.ok(r.claim.length > 20, 'the claim is on the stage');
  assert.ok(r.claimBottom <= 721, `claim ends at ${r.claimBottom}`);
  assert.ok(r.knobs >= 2, 'the knob');
  assert.ok(r.pictureTop < 600, `the picture starts at ${r.pictureTop}`);
  assert.ok(r.verdictBottom <= 721, `the verdict ends at ${r.verdictBottom}px`);
  // the step cost's source and terms: tiny_lm_generate's fitted one (or, where none ships, the modelled one)
  assert.match(r.cost, lang === 'zh' ? /tiny_lm.*(拟合|建模).*微秒/ : /(tiny_lm_generate's fit|[Mm]odelled).*µs/);
  if (lang === 'zh') assert.deepEqual(englishWordsIn(r.verdict + r.cost), []);
}

const stepOf = (p: Page, demo: string) => p.$eval(`[data-testid=${demo}-demo]`, (e) => Number((e as HTMLElement).dataset.step));

/**
 * The picture follows the header: restart shows no step, play at 1/100x runs it, pause freezes it (the
 * picture and the time stand over half a second of frames), step shows exactly one more step, the
 * scrubber (spanning the picture's run) moves it, restart takes it back; the verdict is the same whole-run verdict throughout, and says what the picture shows.
 */
async function followsPlayback(p: Page, demo: string, lang: string) {
  const opened = await read(p, demo);
  assert.ok(Number(opened.data.step) > 0, `${demo} opens on ${opened.data.step} steps shown, not empty`);
  await p.click('[data-testid=teach-restart]');
  await p.waitForFunction((d) => (document.querySelector(`[data-testid=${d}-demo]`) as HTMLElement).dataset.step === '0', demo);
  const restarted = await read(p, demo);
  assert.ok(restarted.timeline.every((r) => Number(r.prefill) + Number(r.decode) + Number(r.held) === 0), 'nothing shown at time 0');
  assert.equal(restarted.verdict, opened.verdict, 'the verdict is the whole runs, whatever the picture shows');
  assert.match(restarted.shown, lang === 'zh' ? /第 0 \/ \d+ 步.*完整运行/ : /step 0 of \d+.*whole runs/);
  await p.selectOption('[data-testid=teach-speed]', '10');
  await p.click('[data-testid=teach-play]');
  await p.waitForFunction((d) => Number((document.querySelector(`[data-testid=${d}-demo]`) as HTMLElement).dataset.step) >= 3, demo);
  await p.click('[data-testid=teach-pause]');
  const paused = await read(p, demo);
  assert.ok(Number(paused.data.step) < Number(paused.data.steps), `paused mid-run at step ${paused.data.step}`);
  await p.waitForTimeout(500);
  const still = await read(p, demo);
  assert.equal(still.data.step, paused.data.step, 'paused: no further step');
  assert.equal(still.picture, paused.picture, 'paused: the picture stands');
  assert.equal(still.time, paused.time, 'paused: the time stands');
  await p.click('[data-testid=teach-step]');
  const stepped = await read(p, demo);
  assert.equal(Number(stepped.data.step), Number(paused.data.step) + 1, 'step: one more step of the run');
  assert.notEqual(stepped.picture, paused.picture, 'step: the picture moved');
  assert.notEqual(stepped.time, paused.time);
  // the scrubber spans the picture's run: half-way along it shows part of the run
  await p.$eval('[data-testid=teach-scrub]', (e) => {
    const input = e as HTMLInputElement;
    Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!.call(input, String(Math.round(Number(input.max) / 2)));
    input.dispatchEvent(new Event('input', { bubbles: true }));
  });
  const scrubbed = await read(p, demo);
  assert.ok(Number(scrubbed.data.step) > 0 && Number(scrubbed.data.step) < Number(scrubbed.data.steps), `scrubbed half-way: step ${scrubbed.data.step} of ${scrubbed.data.steps}`);
  await p.click('[data-testid=teach-restart]');
  assert.equal(await stepOf(p, demo), 0, 'restart: back to nothing shown');
  await p.selectOption('[data-testid=teach-speed]', '100');
}

for (const lang of ['en', 'zh'] as const) {
  test(`${lang}: lesson 15 — the token timeline request-level vs continuous, the verdict from both rows`, { skip: missing }, async () => {
    await openLesson(s.page, s.url, 'rebuild', lang, '&large=1');
    await s.page.waitForSelector('[data-testid=rebuild-demo] [data-testid=token-timeline-row]');
    const first = await read(s.page, 'rebuild');
    await screenshot(s.page, `gen-rebuild-${lang}-static`);
    onOneScreen(first, lang);
    assert.equal(first.data.mode, 'static');
    assert.equal(first.data.claim, 'holds');
    // request-level: finished members pad their batch (held cells), 8 slots
    assert.equal(first.timeline.length, 8);
    assert.ok(first.timeline.some((r) => Number(r.held) > 0));
    const row = (m: string) => first.rows.find((r) => r.mode === m)!;
    assert.equal(row('static').tokens, row('continuous').tokens, 'the same tokens');
    assert.ok(Number(row('continuous').span) < Number(row('static').span));
    await s.page.click('[data-testid=rebuild-mode-continuous]');
    const cont = await read(s.page, 'rebuild');
    assert.equal(cont.data.mode, 'continuous');
    assert.ok(cont.timeline.every((r) => Number(r.held) === 0), 'no padding when the batch is rebuilt every step');
    assert.ok(cont.timeline.length <= first.timeline.length, 'a rebuilt batch needs no more slots than a fixed one');
    assert.equal(cont.verdict, first.verdict, 'the verdict is the two rows, whichever is shown');
    assert.ok(first.verdict.includes(String(row('continuous').tokens)), first.verdict);
    await followsPlayback(s.page, 'rebuild', lang);
  });

  test(`${lang}: lesson 16 — the KV block map at a step, its preemptions; the verdict from every budget`, { skip: missing }, async () => {
    await openLesson(s.page, s.url, 'kvlimit', lang, '&large=1');
    await s.page.waitForSelector('[data-testid=kvlimit-demo] [data-testid=kv-block-map]');
    const first = await read(s.page, 'kvlimit');
    await screenshot(s.page, `gen-kvlimit-${lang}`);
    onOneScreen(first, lang);
    assert.equal(first.data.policy, 'max_utilization');
    assert.equal(first.data.blocks, '16');
    assert.equal(first.data.claim, 'holds');
    assert.equal(first.blocks?.total, '16');
    assert.ok(Number(first.blocks?.used) > 0);
    assert.ok(Number(first.data.preemptions) > 0);
    assert.ok(first.timeline.some((r) => Number(r.preempted) > 0), 'the timeline marks the preemptions');
    assert.equal(first.rows.length, 8);
    const row = (p: string, b: number) => first.rows.find((r) => r.policy === p && Number(r.blocks) === b)!;
    assert.equal(row('max_utilization', 16).tps, first.data.tps);
    assert.ok(Number(row('guaranteed_no_evict', 8).tps) < Number(row('guaranteed_no_evict', 64).tps));
    assert.equal(row('guaranteed_no_evict', 8).preemptions, '0');
    // it opens on the first preemption (the header's time at that step's end), the map part-way through the run
    assert.ok(Number(first.data.step) > 1 && Number(first.data.step) < Number(first.data.steps), `opens at step ${first.data.step}`);
    assert.equal(first.timeline.reduce((n, r) => n + Number(r.preempted), 0) > 0, true);
    assert.match(first.shown, lang === 'zh' ? /完整运行/ : /whole runs/, 'the verdict says it is from the whole run');
    await followsPlayback(s.page, 'kvlimit', lang);
    // the header moves the map through the run's steps: restart shows the whole budget free, one step in it
    // starts filling, and playing on fills it as sequences join
    const empty = await read(s.page, 'kvlimit');
    assert.deepEqual([empty.blocks?.used, empty.blocks?.total], ['0', '16']);
    await s.page.click('[data-testid=teach-step]');
    const early = await read(s.page, 'kvlimit');
    assert.equal(early.data.step, '1');
    assert.ok(Number(early.blocks?.used) <= Number(first.blocks?.used));
    await s.page.selectOption('[data-testid=teach-speed]', '10');
    await s.page.click('[data-testid=teach-play]');
    await s.page.waitForFunction(() => Number((document.querySelector('[data-testid=kvlimit-demo]') as HTMLElement).dataset.step) >= 8);
    await s.page.click('[data-testid=teach-pause]');
    const played = await read(s.page, 'kvlimit');
    assert.ok(Number(played.blocks?.used) > Number(early.blocks?.used), `${played.blocks?.used} blocks at step ${played.data.step}`);
    // guaranteed_no_evict at 64 blocks: nobody is preempted
    await s.page.click('[data-testid=kvlimit-policy-guaranteed_no_evict]');
    await s.page.click('[data-testid=kvlimit-blocks-64]');
    const roomy = await read(s.page, 'kvlimit');
    assert.equal(roomy.data.preemptions, '0');
    assert.equal(roomy.blocks?.total, '64');
    assert.ok(roomy.timeline.every((r) => Number(r.preempted) === 0));
  });

  test(`${lang}: lesson 17 — the long prompt in one step or in chunks; the decoders' stall in the verdict`, { skip: missing }, async () => {
    await openLesson(s.page, s.url, 'chunked', lang, '&large=1');
    await s.page.waitForSelector('[data-testid=chunked-demo] [data-testid=token-timeline-row]');
    const first = await read(s.page, 'chunked');
    await screenshot(s.page, `gen-chunked-${lang}-off`);
    onOneScreen(first, lang);
    assert.equal(first.data.chunked, 'false');
    assert.equal(first.data.budget, '256');
    assert.equal(first.data.claim, 'holds');
    const row = (c: boolean, b: number) => first.rows.find((r) => r.chunked === String(c) && Number(r.budget) === b)!;
    assert.equal(row(false, 256).stall, first.data.stall);
    assert.ok(Number(row(false, 256).stall) > 1.5 * Number(row(true, 64).stall));
    assert.equal(row(false, 64).refused, 'true', 'without chunking a prompt over max_num_tokens is refused');
    await s.page.click('[data-testid=chunked-on-true]');
    await s.page.click('[data-testid=chunked-budget-64]');
    const on = await read(s.page, 'chunked');
    assert.equal(on.data.chunked, 'true');
    assert.equal(on.data.stall, row(true, 64).stall);
    assert.ok(Number(on.data.stall) < Number(first.data.stall));
    // the strip of step times under the timeline: the one long step is gone
    assert.ok(on.longestStep < first.longestStep, `${on.longestStep} vs ${first.longestStep}`);
    // the verdict names both stalls, as the rows give them
    assert.match(on.verdict, /64/);
    await screenshot(s.page, `gen-chunked-${lang}-on-64`);
    await s.page.click('[data-testid=chunked-on-false]');
    const refused = await read(s.page, 'chunked');
    assert.equal(refused.data.refused, 'true');
    assert.match(refused.verdict, lang === 'zh' ? /拒绝/ : /refuses/);
    await followsPlayback(s.page, 'chunked', lang);
  });
}
