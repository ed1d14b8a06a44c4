/**
 * Teaching mode in Debian's Chromium, in English and Chinese: each lesson's experiment proves its claim
 * with the numbers the page shows; the lesson-5 knob hits the memory budget; a step is narrated; a shared
 * link reopens the exact demo; a Chinese walk over every lesson and view finds no untranslated English.
 * Runs against the built dashboard on a static server (teaching mode needs no InferScope server).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chromiumMissing, screenshot } from './browser';
import { staticSuite } from './suites';
import { column, englishWords, openLesson } from './teaching-page';
import { LESSONS } from '../../apps/web/src/teach/lessons';

const missing = chromiumMissing();
const s = staticSuite({ viewport: { width: 1440, height: 900 }, timeoutMs: 60_000 });

for (const lang of ['en', 'zh'] as const) {
  test(`${lang}: lesson 3 shows batching on >= 1.5x off, delay 2 ms >= 3x the batch of delay 0, MLP gain >= 3x, CNN <= 1.3x`, { skip: missing }, async () => {
    await openLesson(s.page, s.url, 'batching', lang);
    assert.equal(await s.page.getAttribute('html', 'lang'), lang === 'zh' ? 'zh-CN' : 'en');
    const [off, on] = await column(s.page, 'on-off', 'throughput');
    assert.ok(on / off >= 1.5, `on/off ${on}/${off}`);
    const [b0, b2] = await column(s.page, 'delay', 'batch');
    assert.ok(b2 / b0 >= 3, `mean batch ${b0} -> ${b2}`);
    const [busy0, busy2] = await column(s.page, 'delay', 'busy');
    assert.ok(busy2 < busy0, `instance time per request ${busy0} -> ${busy2}`);
    const [p0, p2] = await column(s.page, 'delay', 'p50');
    assert.ok(p2 > p0, `the latency cost is shown (${p0} -> ${p2})`);
    const [t0, t2] = await column(s.page, 'overload', 'throughput');
    assert.ok(Math.abs(t2 / t0 - 1) < 0.05, `under overload the delay barely matters (${t0} vs ${t2})`);
    const t = await column(s.page, 'bound', 'throughput');
    assert.ok(t[1] / t[0] >= 3, `MLP gain ${t[1] / t[0]}`);
    assert.ok(t[3] / t[2] <= 1.3, `CNN gain ${t[3] / t[2]}`);
    const verdict = (await s.page.textContent('[data-testid=exp-on-off-verdict]')) ?? '';
    assert.match(verdict, lang === 'zh' ? /倍/ : /×/);
    await s.page.click('[data-testid=teach-step]');
    await s.page.click('[data-testid=teach-step]');
    const line = (await s.page.locator('[data-testid=narration-line]').last().textContent()) ?? '';
    assert.match(line, lang === 'zh' ? /请求|批|实例|内存/ : /request|batch|instance|memory/);
    await screenshot(s.page, `teach-batching-${lang}`);
  });

  test(`${lang}: lesson 5 shows instances help up to 2 cores, and the knob beside the picture hits the memory budget`, { skip: missing }, async () => {
    await openLesson(s.page, s.url, 'concurrency', lang);
    const t = await column(s.page, 'instances', 'throughput');
    assert.ok(t[1] / t[0] > 1.7, `2 instances ${t[1] / t[0]}x`);
    assert.ok(t[3] / t[1] < 1.1, `4 vs 2 instances ${t[3] / t[1]}x`);
    for (let i = 0; i < 6 && (await s.page.locator('[data-testid=knob-error]').count()) === 0; i++) {
      await s.page.click('[data-testid=knob-plus]');
      await s.page.waitForTimeout(200);
    }
    assert.match((await s.page.textContent('[data-testid=knob-error]')) ?? '', lang === 'zh' ? /超出内存预算/ : /memory budget exceeded/);
    assert.equal(await s.page.textContent('[data-testid=knob-count]'), '4');
    assert.match(s.page.url(), /inst=4/);
  });

  test(`${lang}: lesson 4 shows PyTorch costlier than onnxruntime on the same weights (measured), lesson 6 the throughput limit of a sweep`, { skip: missing }, async () => {
    await openLesson(s.page, s.url, 'backends', lang);
    // rows: onnxruntime and pytorch through the server, then each backend's compute alone
    const light = await column(s.page, 'backends-light', 'busy');
    const heavy = await column(s.page, 'backends-heavy', 'busy');
    assert.ok(light[1] / light[0] > 1 && heavy[1] / heavy[0] > 1, `through the server: ${light[1] / light[0]}, ${heavy[1] / heavy[0]}`);
    assert.ok(heavy[3] / heavy[2] > 1.3 * (light[3] / light[2]), `the compute gap grows with the batch: ${light[3] / light[2]} -> ${heavy[3] / heavy[2]}`);
    assert.equal(await s.page.getAttribute('[data-testid=calibration-source]', 'data-source'), 'bundled', 'a static page simulates with the shipped calibration');
    await openLesson(s.page, s.url, 'operations', lang);
    const p99 = await column(s.page, 'sweep', 'p99');
    const thr = await column(s.page, 'sweep', 'throughput');
    assert.ok(p99[p99.length - 1] > 10 * p99[0], `p99 climbs past the limit (${p99.join(', ')})`);
    assert.ok(thr[thr.length - 1] < 1.3 * thr[thr.length - 2], `throughput flattens (${thr.join(', ')})`);
  });
}

test('a shared link opens the exact demo: delay, speed and playback time', { skip: missing }, async () => {
  await openLesson(s.page, s.url, 'batching', 'en', '&delay=2000&speed=100&t=40000');
  assert.equal(await s.page.textContent('[data-testid=knob-delay-value]'), '2ms');
  assert.equal(await s.page.inputValue('[data-testid=teach-speed]'), '100');
  assert.match((await s.page.textContent('[data-testid=teach-time]')) ?? '', /40(\.0)? ms/);
  await s.page.click('[data-testid=lang-zh]');
  assert.match(s.page.url(), /lang=zh/);
  assert.equal(await s.page.getAttribute('html', 'lang'), 'zh-CN');
  assert.match((await s.page.textContent('[data-testid=teach-time]')) ?? '', /40(\.0)? ms/, 'switching language keeps the run');
  assert.match((await s.page.textContent('[data-testid=lesson-claim]')) ?? '', /批处理/);
});

test('zh: every lesson and every view is in Chinese (identifiers, model names and units aside)', { skip: missing }, async () => {
  const found: string[] = [];
  // every registered lesson, so a new one is walked too; the streaming lesson needs the live server's
  // token_streamer and is walked in Chinese by streaming-lesson.test.ts
  for (const lesson of LESSONS.map((l) => l.id).filter((id) => id !== 'streaming')) {
    await openLesson(s.page, s.url, lesson, 'zh');
    await s.page.click('[data-testid=teach-play]');
    await s.page.waitForTimeout(400);
    await s.page.click('[data-testid=teach-pause]');
    await s.page.click('[data-testid=teach-step]');
    for (const view of ['architecture', 'data', 'state', 'performance']) {
      await s.page.click(`[data-testid=tab-${view}]`);
      await s.page.waitForTimeout(250);
      for (const w of await englishWords(s.page)) found.push(`${lesson}/${view}: ${w}`);
    }
  }
  assert.deepEqual(found, []);
});

test('no console errors on the way', { skip: missing }, () => {
  assert.deepEqual(s.errors, []);
});

for (const lang of ['en', 'zh'] as const) {
  test(`${lang}: the course demo shows the naive batcher's worst wait well above Triton's, and sparse traffic waits seconds`, { skip: missing }, async () => {
    await openLesson(s.page, s.url, 'course', lang);
    const { parseDuration } = await import('./teaching-page');
    const naive = parseDuration((await s.page.textContent('[data-testid=course-worst-naive]')) ?? '');
    const triton = parseDuration((await s.page.textContent('[data-testid=course-worst-triton]')) ?? '');
    assert.ok(naive > 1.5 * triton, `worst wait naive ${naive} vs Triton ${triton}`);
    assert.match((await s.page.textContent('[data-testid=course-verdict]')) ?? '', lang === 'zh' ? /朴素批处理器/ : /naive batcher/);
    // sparse arrivals (mean gap 1 s): the naive batcher holds a request until 3 more arrive, or the final flush
    await s.page.evaluate(() => {
      const input = document.querySelector('[data-testid=course-gap]') as HTMLInputElement;
      Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!.call(input, '1000000');
      input.dispatchEvent(new Event('input', { bubbles: true }));
    });
    await s.page.waitForFunction(() => /gap=1000000/.test(location.search));
    const sparseNaive = parseDuration((await s.page.textContent('[data-testid=course-worst-naive]')) ?? '');
    const sparseTriton = parseDuration((await s.page.textContent('[data-testid=course-worst-triton]')) ?? '');
    assert.ok(sparseNaive > 2_000_000 && sparseNaive > 10 * sparseTriton, `naive waits for the queue to fill or the flush (${sparseNaive} µs)`);
    assert.ok(sparseTriton <= 100_000 + 1, `Triton waits at most its 100 ms delay (${sparseTriton} µs)`);
    await screenshot(s.page, `teach-course-${lang}`);
  });
}

/** The element a link brings into view: an experiment's table is shown by the chart switching to it. */
const focused = (target: string) => (target.startsWith('exp-') ? `[data-testid=experiment][data-focused=${target}]` : `[data-testid=${target}][data-focused]`);

test('zh: each misconception card opens the experiment that disproves it', { skip: missing }, async () => {
  await openLesson(s.page, s.url, 'operations', 'zh');
  const open = async () => {
    if (!(await s.page.locator('[data-testid=misconceptions][open]').count())) await s.page.click('[data-testid=misconceptions] summary');
  };
  for (const [myth, lesson, target] of [['delayZero', 'batching', 'exp-overload'], ['moreInstances', 'concurrency', 'exp-instances'], ['biggerBatch', 'batching', 'exp-bound']] as const) {
    await open();
    await s.page.click(`[data-testid=myth-${myth}-show]`);
    await s.page.waitForSelector(`[data-testid=teaching-panel][data-lesson=${lesson}]`);
    await s.page.waitForSelector(focused(target), { timeout: 60_000 });
  }
  await open();
  await s.page.click('[data-testid=myth-backendPlatform-show]');
  await s.page.waitForSelector('[data-testid=mistake-checker][data-focused]');
  assert.match((await s.page.textContent('[data-testid=mistake-verdict]')) ?? '', /'platform' and 'backend'/);
  assert.match(s.page.url(), /ex=4/);
  await open();
  await s.page.click('[data-testid=myth-dimsBatch-show]');
  await s.page.waitForFunction(() => !/ex=4/.test(location.search));
  assert.doesNotMatch((await s.page.textContent('[data-testid=mistake-verdict]')) ?? '', /'platform' and 'backend'/);
  assert.match((await s.page.textContent('[data-testid=myth-dimsBatch]')) ?? '', /批维度/);
});

test('en: every interview answer links to the view or experiment that shows it', { skip: missing }, async () => {
  await openLesson(s.page, s.url, 'config', 'en');
  const ids = await s.page.locator('[data-testid=interview] li').evaluateAll((els) => els.map((e) => e.getAttribute('data-testid')!.replace('question-', '')));
  assert.equal(ids.length, 8);
  const targets: Record<string, string> = {
    whenSend: 'narration', preferred: 'chart-dataflow', delayCost: 'exp-delay', instances: 'exp-instances',
    queueCompute: 'chart-queue-compute', perfSweep: 'exp-sweep', ensemble: 'view-architecture', outOfMemory: 'lesson-knob',
  };
  for (const id of ids) {
    if (!(await s.page.locator('[data-testid=interview][open]').count())) await s.page.click('[data-testid=interview] summary');
    await s.page.click(`[data-testid=question-${id}-show]`);
    await s.page.waitForSelector(focused(targets[id]), { timeout: 60_000 });
    await s.page.evaluate((sel) => document.querySelector(sel)?.removeAttribute('data-focused'), focused(targets[id]));
  }
});
