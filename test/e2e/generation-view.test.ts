/**
 * The dashboard's generation panels against the real server (port 0, the bundled repository): streams of
 * generate_stream traffic to tiny_lm_generate, and the state view draws the token timeline (a row per
 * slot, each sequence's one prefill cell and a decode cell per later token), the KV block map filling
 * and freeing, and the performance view the TTFT, inter-token, tokens/s and KV charts. At 1280x720 with
 * large type in English and Chinese: no text below 16 px, no layout problem, no untranslated English.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chromiumMissing, screenshot } from './browser';
import { liveSuite } from './suites';
import { layoutProblems } from './layout-check';
import { belowShare, canvasText, clearCanvasText, domText, recordCanvasText } from './text-sizes';
import { englishWords } from './teaching-page';
import { streamTokens } from '../support/generate-stream.ts';

const missing = chromiumMissing();
const s = liveSuite({ viewport: { width: 1280, height: 720 } });
const MODEL = 'tiny_lm_generate';

const stream = (prompt: string, maxTokens: number) => streamTokens(s.url, MODEL, prompt, maxTokens);

interface Drawn {
  rows: { slot: number; seqs: string[]; prefill: number; decode: number; held: number; preempted: number }[];
  kv: { total: number; used: number; owners: string[]; blocks: number; filled: number } | null;
  /** the most blocks in use the page drew since the sampler started */
  peak: number;
}

const drawn = (): Promise<Drawn> => s.page.evaluate(() => {
  const map = document.querySelector('[data-testid=kv-block-map]') as HTMLElement | null;
  return {
    rows: [...document.querySelectorAll('[data-testid=token-timeline-row]')].map((e) => {
      const d = (e as HTMLElement).dataset;
      return { slot: Number(d.slot), seqs: (d.seqs ?? '').split(' ').filter(Boolean), prefill: Number(d.prefill), decode: Number(d.decode), held: Number(d.held), preempted: Number(d.preempted) };
    }),
    kv: map && {
      total: Number(map.dataset.total), used: Number(map.dataset.used), owners: (map.dataset.owners ?? '').split(' ').filter(Boolean),
      blocks: map.querySelectorAll('[data-owner]').length, filled: map.querySelectorAll('[data-owner]:not([data-owner=""])').length,
    },
    peak: (window as unknown as { __kvPeak?: number }).__kvPeak ?? 0,
  };
});

async function until(pred: (d: Drawn) => boolean, what: string, ms = 20_000): Promise<Drawn> {
  const deadline = Date.now() + ms;
  let last = await drawn();
  while (!pred(last)) {
    if (Date.now() > deadline) assert.fail(`${what}: the page drew ${JSON.stringify(last).slice(0, 600)}`);
    await new Promise((r) => setTimeout(r, 100));
    last = await drawn();
  }
  return last;
}

/** Watches the block map in the page (the blocks in use can be gone between two looks from here). */
const samplePeak = () => s.page.evaluate(() => {
  const w = window as unknown as { __kvPeak?: number };
  w.__kvPeak = 0;
  setInterval(() => {
    const used = Number((document.querySelector('[data-testid=kv-block-map]') as HTMLElement | null)?.dataset.used ?? 0);
    w.__kvPeak = Math.max(w.__kvPeak ?? 0, used);
  }, 20);
});

async function textProblems(where: string): Promise<string[]> {
  const out: string[] = [];
  await clearCanvasText(s.page);
  await s.page.waitForTimeout(700);
  for (const [kind, items] of [['canvas', await canvasText(s.page)], ['DOM', await domText(s.page)]] as const) {
    const b = belowShare(items, 16);
    if (b.small.length) out.push(`${where} ${kind}: ${(b.share * 100).toFixed(1)}% below 16 px: ${b.small.join('; ')}`);
  }
  for (const p of await layoutProblems(s.page)) out.push(`${where}: ${p}`);
  return out;
}

const PROMPTS = ['the batch is rebuilt', 'every step', 'KV', 'blocks fill and free', 'tokens per second'];
/** a short wave (about 40 steps: within the timeline's window, exact counts) */
const SHORT = [18, 30, 12, 36, 24];
/** a long wave (about 200 steps: one or more of the gateway's 250 ms ticks usually see its blocks in use) */
const LONG = [160, 200, 120, 190, 180];

const wave = async (lang: string, lengths: number[]) => {
  const counts = await Promise.all(PROMPTS.map((p, i) => stream(`${lang} ${p}`, lengths[i]!)));
  assert.deepEqual(counts, lengths, 'each stream got its max_tokens');
};
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

for (const lang of ['en', 'zh'] as const) {
  test(`${lang}, 1280x720 large type: the state view draws the timeline and the block map of real traffic; the performance view its figures`, { skip: missing }, async () => {
    if (lang === 'en') await recordCanvasText(s.browser.context);
    await s.page.goto(`${s.url}/?view=state&model=${MODEL}:1&large=1&lang=${lang}`);
    await s.page.waitForSelector('[data-testid=connection][data-status=connected]', { timeout: 20_000 });
    await s.page.waitForSelector('[data-testid=generation-state] [data-testid=generation-model]', { timeout: 15_000 });
    if (lang === 'en') {
      // the first traffic the server sees: the whole of it is in the timeline, so the counts are exact
      await wave(lang, SHORT);
      const d = await until((x) => sum(x.rows.map((r) => r.decode)) >= sum(SHORT.map((l) => l - 1)) && x.kv?.used === 0, 'the short wave drawn');
      assert.equal(sum(d.rows.map((r) => r.prefill)), PROMPTS.length, 'one prefill cell per sequence');
      assert.equal(sum(d.rows.map((r) => r.decode)), sum(SHORT.map((l) => l - 1)), 'a decode cell per token after the first');
      assert.equal(sum(d.rows.map((r) => r.held + r.preempted)), 0, 'nothing held or preempted with room for all');
      assert.equal(new Set(d.rows.flatMap((r) => r.seqs)).size, PROMPTS.length, 'each sequence in a row');
      assert.ok(d.rows.length >= 2 && d.rows.length <= PROMPTS.length, `a row per slot used: ${d.rows.length}`);
    }
    await samplePeak();
    // the block map the page gets is a sample at the gateway's 250 ms tick: a wave that runs between two
    // ticks (a fast machine) shows none of its blocks, so it is sent again until a tick lands inside one
    for (let i = 0; i < 5; i++) {
      await wave(lang, LONG);
      await s.page.waitForTimeout(300);
      if ((await drawn()).peak >= PROMPTS.length * 2) break;
    }
    const done = await until((d) => d.kv !== null && d.kv.used === 0 && d.peak > 0, 'the long wave drawn and its blocks freed');
    const window = await s.page.$eval('[data-testid=token-timeline]', (e) => ({ from: Number((e as HTMLElement).dataset.from), to: Number((e as HTMLElement).dataset.to) }));
    assert.equal(window.to - window.from + 1, 100, 'the newest 100 steps');
    assert.ok(done.rows.length >= 2 && done.rows.length <= 8, `a row per slot used (max_num_sequences 8): ${done.rows.length}`);
    assert.ok(sum(done.rows.map((r) => r.decode)) >= 100, 'the newest steps decode');
    assert.ok(done.peak >= PROMPTS.length * 2, `the block map filled: ${done.peak} blocks at the most`);
    assert.equal(done.kv!.blocks, done.kv!.total, 'a square per block of the budget');
    assert.equal(done.kv!.filled, 0, 'and every one free again');
    const problems = await textProblems(`${lang} state`);
    await s.page.locator('[data-testid=generation-state]').scrollIntoViewIfNeeded();
    await screenshot(s.page, `generation-state-${lang}`);

    // the performance view: the four charts with points (tokens/s above zero at some point)
    await s.page.click('[data-testid=tab-performance]');
    // the figures points close a second at a time: wait for the wave's
    await s.page.waitForFunction(() => [...document.querySelectorAll('[data-testid^=chart-gen-] canvas')].filter((c) => (c as HTMLCanvasElement).dataset.legend).length === 4, undefined, { timeout: 10_000 });
    const legends = await s.page.$$eval('[data-testid^=chart-gen-] canvas', (cs) => cs.map((c) => (c as HTMLCanvasElement).dataset.legend ?? ''));
    assert.equal(legends.length, 4);
    for (const l of legends) assert.match(l, /tiny_lm_generate v1/, 'each chart has the model line');
    const guides = await s.page.$eval('[data-testid=chart-gen-kv] canvas', (c) => (c as HTMLCanvasElement).dataset.guides ?? '');
    assert.match(guides, /128/, 'the KV chart marks the budget');
    problems.push(...(await textProblems(`${lang} performance`)));
    if (lang === 'zh') for (const w of await englishWords(s.page)) problems.push(`untranslated on the performance view: ${w}`);
    await s.page.locator('[data-testid=chart-gen-ttft]').scrollIntoViewIfNeeded();
    await screenshot(s.page, `generation-performance-${lang}`);
    await s.page.click('[data-testid=tab-state]');
    if (lang === 'zh') for (const w of await englishWords(s.page)) problems.push(`untranslated on the state view: ${w}`);
    assert.deepEqual(problems, []);
  });
}

test('no console errors on the way', { skip: missing }, () => {
  assert.deepEqual(s.errors, []);
});
