// The "two models, one accelerator" lesson (teach/accelerator-run.ts, cache-run.ts, AcceleratorDemo.tsx):
// core's simulator with the server's rate limiter and response cache, seed 1. Without the limiter the two
// models run at once and each batch takes twice as long; with it they never overlap and the lower weight
// gets more turns; half the inputs repeated halve the compute, unique ones only pay the lookup. The
// verdicts are computed from the rows (claims.ts 'accelerator', 'cache'), and say so when rows do not hold.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { claimHolds } from '../src/teach/claims';
import { acceleratorFigures, acceleratorRows, HEAVY_COST, MODELS, overlapUs, PRIORITIES, runAccelerator, simulateAccelerator, TRAFFIC_US } from '../src/teach/accelerator-run';
import { cacheFigures, cacheRows, LOOKUP_US, REPEATS, simulateCache } from '../src/teach/cache-run';
import { ACCELERATOR_DEMO_EN, ACCELERATOR_DEMO_ZH, type LimiterVerdict } from '../src/i18n/lesson-accelerator';
import { lessonById } from '../src/teach/lessons';
import { LESSONS_EN } from '../src/i18n/lessons-en';
import { LESSONS_ZH } from '../src/i18n/lessons-zh';

const rows = acceleratorRows();
const caching = cacheRows();
const solo = (size: number) => HEAVY_COST.fixed_us + HEAVY_COST.per_item_us * size;

test('the lesson is registered (chapter 14, its own knob) with text in both languages', () => {
  const l = lessonById('accelerator')!;
  assert.equal(l.chapter, 14);
  assert.equal(l.knob, 'accelerator');
  assert.match(LESSONS_EN.accelerator.title, /one accelerator/);
  assert.match(LESSONS_ZH.accelerator.title, /加速器/);
  for (const m of MODELS) assert.ok(LESSONS_ZH.accelerator.intro.join('').includes(m), `${m} verbatim in the Chinese text`);
});

test('every run answers every request; off once, on at every priority', () => {
  assert.deepEqual(rows.map((r) => `${r.mode}/${r.priority}`), ['off/1', ...PRIORITIES.map((p) => `execution_count/${p}`)]);
  for (const r of rows) for (const m of r.models) {
    assert.ok(m.sent > 200, `${r.mode}/${r.priority} ${m.model}: ${m.sent} sent`);
    assert.equal(m.answered, m.sent);
  }
});

test('limiter off: the two compute at once and each batch takes about twice its solo time; no one waits for accel', () => {
  const off = runAccelerator('off', 4);
  assert.equal(off.mode, 'off');
  assert.ok(overlapUs(off) > TRAFFIC_US / 2, `overlap ${overlapUs(off)}`);
  for (const m of off.models) {
    assert.equal(m.waitUs, 0);
    assert.ok(m.spans.every((s) => s.state === 'busy'));
    assert.ok(m.meanBatchUs > 1.8 * solo(8) && m.meanBatchUs < 2.1 * solo(8), `${m.model}: ${m.meanBatchUs}`);
  }
});

test('limiter on: never at once, each batch at its solo time, the instances wait for accel; the priority weight decides the turns', () => {
  for (const p of PRIORITIES) {
    const on = runAccelerator('execution_count', p);
    assert.equal(overlapUs(on), 0, `priority ${p}`);
    for (const m of on.models) {
      for (const s of m.spans.filter((x) => x.state === 'busy')) assert.equal(s.to - s.from, solo(s.size));
      assert.ok(m.waitUs > 0, `${m.model} waited`);
    }
  }
  const [even, , widest] = PRIORITIES.map((p) => runAccelerator('execution_count', p));
  assert.ok(Math.abs(even!.models[0]!.executions - even!.models[1]!.executions) <= 1, 'equal priorities: equal turns');
  const ratio = widest!.models[0]!.executions / widest!.models[1]!.executions;
  assert.ok(ratio > 3 && ratio < 5, `priority 4: turns ${ratio}`);
  assert.ok(widest!.models[0]!.p99Us < widest!.models[1]!.p99Us / 4, 'the favoured model\'s p99 falls, the other\'s grows');
});

test('the cache: half the inputs repeated hit about half the time and halve the compute; unique inputs never hit, same compute, the lookup more', () => {
  const f = cacheFigures(caching, 'repeated', true);
  assert.ok(Math.abs(f.figures.hitRate - REPEATS) < 0.05, `hit rate ${f.figures.hitRate}`);
  assert.ok(f.figures.computeRepeated > 0.45 && f.figures.computeRepeated < 0.55, `compute ${f.figures.computeRepeated}`);
  assert.equal(f.rOn.hits + f.rOn.misses + 1, f.rOn.sent, 'one repeat arrived while its first was in flight: neither hit nor model miss, as Triton counts it');
  assert.equal(f.rOff.hits + f.rOff.misses, 0, 'no cache, no lookups');
  assert.equal(f.figures.uniqueHits, 0);
  assert.equal(f.uOn.misses, f.uOn.sent);
  assert.equal(f.uOn.computeUs, f.uOff.computeUs);
  assert.equal(f.figures.lookupCostUs, LOOKUP_US);
  for (const r of caching) assert.equal(r.answered, r.sent);
});

test('the verdicts come from the rows: the claims hold on these runs, and the plain account when rows do not bear them out', () => {
  for (const mode of ['off', 'execution_count'] as const) for (const p of PRIORITIES) assert.ok(claimHolds('accelerator', acceleratorFigures(rows, mode, p).figures));
  assert.ok(claimHolds('cache', cacheFigures(caching, 'unique', false).figures));
  const a = acceleratorFigures(rows, 'execution_count', 4);
  assert.equal(a.now.priority, 4);
  assert.equal(a.figures.turnsVision, a.widest.models[0]!.executions);
  // rows where the off run is as fast as the on one, and the priorities change no turns: the claim fails, and the text says so
  const flat = rows.map((r) => ({ ...r, models: r.models.map((m) => ({ ...m, meanBatchUs: 4000, executions: 20 })) }));
  assert.equal(claimHolds('accelerator', acceleratorFigures(flat, 'off', 1).figures), false);
  const v: LimiterVerdict = { on: true, priority: 4, widest: 4, offBatch: ['4 ms', '4 ms'], onBatch: ['4 ms', '4 ms'], turns: [20, 20], p99: ['1 ms', '1 ms'], widestTurns: [20, 20], overlap: '0' };
  assert.match(ACCELERATOR_DEMO_EN.limiterVerdict(v, false), /do not bear the claim out/);
  assert.match(ACCELERATOR_DEMO_ZH.limiterVerdict(v, false), /没有证实/);
  assert.match(ACCELERATOR_DEMO_EN.limiterVerdict({ ...v, turns: [43, 11] }, true), /vision_net \(priority 1\) got 43 turns to speech_net's 11/);
  const noHits = caching.map((r) => ({ ...r, hits: 0, computeUs: 1000 }));
  assert.equal(claimHolds('cache', cacheFigures(noHits, 'repeated', true).figures), false);
});

test('deterministic on the virtual clock: two fresh runs give the same picture and figures', () => {
  assert.deepEqual(simulateAccelerator('execution_count', 2), simulateAccelerator('execution_count', 2));
  assert.deepEqual(simulateCache('repeated', true), simulateCache('repeated', true));
});
