/**
 * Teaching mode hosts the generative model: lesson 15 opens with tiny_lm_generate served by core's step
 * loop in the page (the lesson's own traffic), and the dashboard's generative views and Live Controls work
 * as against the live server: the state view's token timeline and KV block map fill as the playback
 * plays, Live Controls show continuous batching's knobs, and changing max_num_sequences and the policy is
 * acknowledged with the change list (the input following the live config). At 1280x720 with large type,
 * in English and Chinese (no untranslated English in the controls). Runs against the built dashboard on a
 * static server: nothing here needs a server.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chromiumMissing, screenshot } from './browser';
import { staticSuite } from './suites';
import { englishWordsIn, openLesson } from './teaching-page';
import { layoutProblems } from './layout-check';

const missing = chromiumMissing();
const s = staticSuite({ viewport: { width: 1280, height: 720 }, timeoutMs: 60_000 });

/** What the state view's generation panel drew (outside the lesson's own demo picture). */
const drawn = () => s.page.evaluate(() => {
  const panel = document.querySelector('[data-testid=generation-state]');
  const map = panel?.querySelector('[data-testid=kv-block-map]') as HTMLElement | null;
  const rows = [...(panel?.querySelectorAll('[data-testid=token-timeline-row]') ?? [])].map((e) => (e as HTMLElement).dataset);
  return {
    rows: rows.length,
    decode: rows.reduce((n, d) => n + Number(d.decode ?? 0), 0),
    prefill: rows.reduce((n, d) => n + Number(d.prefill ?? 0), 0),
    seqs: new Set(rows.flatMap((d) => (d.seqs ?? '').split(' ').filter(Boolean))).size,
    blocks: map ? map.querySelectorAll('[data-owner]').length : 0,
    total: Number(map?.dataset.total ?? 0),
  };
});

async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, what: string, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  let v = await read();
  while (!ok(v)) {
    if (Date.now() > deadline) assert.fail(`${what}: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 100));
    v = await read();
  }
  return v;
}

const acks = (testid: string) => s.page.evaluate((id) => [...document.querySelectorAll(`[data-testid=${id}]`)].map((e) => e.textContent ?? ''), testid);

for (const lang of ['en', 'zh'] as const) {
  test(`${lang}: lesson 15 serves tiny_lm_generate in the page — its timeline and block map fill, and Live Controls change max sequences and the policy`, { skip: missing, timeout: 120_000 }, async () => {
    await openLesson(s.page, s.url, 'rebuild', lang, '&large=1');
    // the opening run is already played: the lesson's traffic went through the step loop
    const opened = await until(drawn, (d) => d.rows > 1 && d.prefill > 0 && d.decode > 0 && d.total === 128, 'the generation panel after opening');
    assert.ok(opened.seqs > 1, 'several sequences in the timeline');
    // play: more steps are drawn, and blocks are owned (the map fills) at some moment
    await s.page.click('[data-testid=teach-play]');
    const peak = await until(async () => {
      const d = await drawn();
      const owned = await s.page.evaluate(() => document.querySelectorAll('[data-testid=generation-state] [data-testid=kv-block-map] [data-owner]:not([data-owner=""])').length);
      return { ...d, owned };
    }, (d) => d.owned > 0 && d.decode + d.prefill > opened.decode + opened.prefill, 'the timeline grows and blocks fill while it plays');
    assert.equal(peak.blocks, 128, 'the block map draws the whole budget');

    // Live Controls act on the generative model: continuous batching's knobs, not the dynamic batcher's
    await s.page.waitForSelector('[data-testid=iterative-controls]');
    assert.equal(await s.page.locator('[data-testid=delay-slider]').count(), 0);
    assert.match((await s.page.textContent('[data-testid=iterative-teaching-note]')) ?? '', lang === 'zh' ? /教学模式.*tiny_lm_generate/ : /Teaching mode: .*tiny_lm_generate/);
    assert.equal(await s.page.inputValue('[data-testid=knob-max_num_sequences-input]'), '8', 'the bundled config');
    const applied = (await acks('ack-applied')).length;
    await s.page.fill('[data-testid=knob-max_num_sequences-input]', '3');
    await s.page.click('[data-testid=knob-max_num_sequences-apply]');
    const afterSeqs = await until(() => acks('ack-applied'), (a) => a.length > applied, 'the max sequences change acknowledged');
    assert.match(afterSeqs.join(' | '), /setIterativeKnobs.*tiny_lm_generate.*max_num_sequences 3/);
    // the input follows the live config: the change list reached the store (config.changed, as the server's)
    await until(() => s.page.inputValue('[data-testid=knob-max_num_sequences-input]'), (v) => v === '3', 'the input follows the live config');

    await s.page.selectOption('[data-testid=knob-batch_scheduler_policy-input]', 'max_utilization');
    const afterPolicy = await until(() => acks('ack-applied'), (a) => a.length > applied + 1, 'the policy change acknowledged');
    assert.match(afterPolicy.join(' | '), /setIterativeKnobs.*batch_scheduler_policy max_utilization/);
    assert.equal(await s.page.inputValue('[data-testid=knob-batch_scheduler_policy-input]'), 'max_utilization');
    assert.deepEqual(await acks('ack-refused'), [], 'nothing refused');

    // still serving after the changes: the timeline keeps growing
    const before = await drawn();
    await until(drawn, (d) => d.decode + d.prefill !== before.decode + before.prefill, 'steps after the changes');

    // the performance view: the four generation charts draw the model's figures points (TTFT, inter-token,
    // tokens/s, KV use with the budget as a guide), the config changes among its markers
    await s.page.click('[data-testid=tab-performance]');
    await s.page.waitForFunction(() => [...document.querySelectorAll('[data-testid^=chart-gen-] canvas')].filter((c) => /tiny_lm_generate v1/.test((c as HTMLCanvasElement).dataset.legend ?? '')).length === 4, undefined, { timeout: 20_000 });
    // the budget as the server sizes it without a memory budget: every slot its longest sequence, so 3
    // sequences x 256 tokens / 16 = 48 blocks once the policy change built the new KV cache (128 before)
    await s.page.waitForFunction(() => /\b48\b/.test((document.querySelector('[data-testid=chart-gen-kv] canvas') as HTMLCanvasElement | null)?.dataset.guides ?? ''), undefined, { timeout: 20_000 });
    await s.page.locator('[data-testid=chart-gen-ttft]').scrollIntoViewIfNeeded();
    await screenshot(s.page, `teaching-generation-performance-${lang}`);
    await s.page.click('[data-testid=teach-pause]').catch(() => undefined);
    await s.page.click('[data-testid=tab-state]');

    const controls = await s.page.evaluate(() => {
      const clone = document.querySelector('[data-testid=iterative-controls]')!.cloneNode(true) as HTMLElement;
      clone.querySelectorAll('[data-verbatim]').forEach((n) => n.remove());
      return clone.textContent ?? '';
    });
    if (lang === 'zh') assert.deepEqual(englishWordsIn(controls), []);
    assert.deepEqual((await layoutProblems(s.page)).filter((p) => /knob-|iterative|generation/.test(p)), []);
    await screenshot(s.page, `teaching-generation-${lang}`);
    assert.deepEqual(s.errors, []);
  });
}
