// Lessons 15-17 (rebuild-run.ts, kv-limit-run.ts, chunk-run.ts): core's iterative scheduler in the simulator
// with seed 1. Each verdict's figures, read from the runs' rows: the claim holds on them, and the verdict
// says so plainly when rows do not bear it out (claims.ts 'rebuild', 'kvlimit', 'chunked').
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { simGenerateAlone, stepCostCalibration } from '@inferscope/core/iterative';
import { claimHolds } from '../src/teach/claims';
import { BATCHINGS, rebuildArrivals, rebuildFigures, runRebuild, simulateRebuild } from '../src/teach/rebuild-run';
import { BLOCK_CHOICES, kvFigures, kvRows, openingStep, POLICIES, runKv, simulateKv } from '../src/teach/kv-limit-run';
import { CHUNK_WORKLOAD, chunkArrivals, chunkFigures, chunkRows, LONG_ID, runChunk, simulateChunk, TOKEN_BUDGETS } from '../src/teach/chunk-run';
import { blockMapAt, GEN_COST, genCostSource, TINY_LM_MODELLED_COST } from '../src/teach/gen-run';
import { REBUILD_DEMO_EN, REBUILD_DEMO_ZH } from '../src/i18n/lesson-rebuild';
import { KV_LIMIT_DEMO_EN, KV_LIMIT_DEMO_ZH } from '../src/i18n/lesson-kv-limit';
import { CHUNK_DEMO_EN, CHUNK_DEMO_ZH } from '../src/i18n/lesson-chunk';
import { LESSONS, lessonById } from '../src/teach/lessons';
import { LESSONS_EN } from '../src/i18n/lessons-en';
import { LESSONS_ZH } from '../src/i18n/lessons-zh';

test('the three lessons are registered (chapters 15-17, each its own demo) with text in both languages', () => {
  for (const [id, chapter] of [['rebuild', 15], ['kvlimit', 16], ['chunked', 17]] as const) {
    const l = lessonById(id)!;
    assert.equal(l.chapter, chapter);
    assert.equal(l.knob, id);
    assert.ok(LESSONS_EN[id].claim.length > 40 && LESSONS_ZH[id].claim.length > 20);
    assert.match(LESSONS_ZH[id].claim, /[\u4e00-\u9fff]/);
  }
  assert.deepEqual(LESSONS.slice(-3).map((l) => l.id), ['rebuild', 'kvlimit', 'chunked']);
  // the step cost is tiny_lm_generate's fitted one (core's iterative calibrations), said on screen with its
  // numbers in both languages; where none ships, the modelled one, said to be modelled
  const source = genCostSource();
  assert.equal(source.kind, 'fitted');
  assert.deepEqual(GEN_COST, stepCostCalibration('tiny_lm_generate')!.fits.continuous.cost);
  const modelled = { kind: 'modelled', cost: TINY_LM_MODELLED_COST } as const;
  for (const t of [REBUILD_DEMO_EN, REBUILD_DEMO_ZH, KV_LIMIT_DEMO_EN, KV_LIMIT_DEMO_ZH, CHUNK_DEMO_EN, CHUNK_DEMO_ZH]) {
    assert.ok(t.cost(source).includes(`${Math.round(GEN_COST.fixed_us)} `) && t.cost(source).includes(String(source.kind === 'fitted' && source.steps)), t.cost(source));
    assert.match(t.cost(modelled), /1500.*250.*60/);
    assert.match(t.cost(modelled), /[Mm]odelled|建模/);
  }
});

test('15: the same tokens in less time, the first token within two steps; request-level pads its batch', () => {
  const rows = BATCHINGS.map((b) => runRebuild(b));
  for (const r of rows) {
    assert.equal(r.completed, r.sent, `${r.batching}: every request answered`);
    assert.equal(r.summary.outputTokens, rebuildArrivals().reduce((n, a) => n + a.request.maxTokens, 0));
  }
  const f = rebuildFigures(rows);
  assert.ok(claimHolds('rebuild', f));
  // seed 1 on the fitted cost (teach/README.md's figures): 477 tokens, 88 vs 160 ms, TTFT p50 0.77 ms vs 82.1 ms
  assert.equal(f.tokensContinuous, 477);
  assert.ok(f.spanContinuous < 0.65 * f.spanStatic, `${f.spanContinuous} vs ${f.spanStatic}`);
  assert.ok(f.tpsContinuous > 1.5 * f.tpsStatic);
  assert.ok(f.ttftP99Continuous < f.ttftP99Static / 10);
  assert.ok(f.ttftStepsContinuous <= 2, `${f.ttftStepsContinuous} steps`);
  assert.ok(f.padStatic > 0);
  assert.equal(rows.find((r) => r.batching === 'continuous')!.summary.padSlots, 0);
  // the timeline: request-level cells held by finished members; continuous none
  assert.ok(runRebuild('static').cells.some((c) => c.kind === 'held'));
  assert.ok(!runRebuild('continuous').cells.some((c) => c.kind === 'held'));
  // rows where continuous is no faster: the claim fails, and the text says so
  const flat = rebuildFigures(rows.map((r) => ({ ...r, summary: { ...r.summary, spanUs: 1000, ttftUs: { ...r.summary.ttftUs, p99: 500 } } })));
  assert.equal(claimHolds('rebuild', flat), false);
  const v = { shown: 'x', tokensStatic: 1, tokensContinuous: 1, spanStatic: '1', spanContinuous: '1', tpsStatic: '1', tpsContinuous: '1', ttftP50Static: '1', ttftP50Continuous: '1', ttftP99Static: '1', ttftP99Continuous: '1', steps: '1', padStatic: 0 };
  assert.match(REBUILD_DEMO_EN.verdict(v, false), /do not show/);
  assert.match(REBUILD_DEMO_ZH.verdict(v, false), /没有显示/);
});

test('16: a smaller KV budget cuts tokens/s; guaranteed_no_evict queues without preempting, max_utilization preempts', () => {
  const rows = kvRows();
  assert.equal(rows.length, POLICIES.length * BLOCK_CHOICES.length);
  for (const r of rows) {
    assert.equal(r.completed, r.sent, `${r.policy}/${r.blocks}: every request answered`);
    assert.ok(r.summary.peakBlocksUsed <= r.blocks);
  }
  const f = kvFigures(rows);
  assert.ok(claimHolds('kvlimit', f));
  assert.ok(f.tpsSmallNoEvict < 0.5 * f.tpsBig, `${f.tpsSmallNoEvict} vs ${f.tpsBig}`);
  assert.ok(f.ttftP99SmallNoEvict > 3 * f.ttftP99Big);
  assert.equal(f.preemptNoEvict, 0);
  assert.equal(f.preemptBig, 0, 'a roomy budget preempts nobody');
  assert.ok(f.preemptSmallMaxUtil > 0);
  assert.ok(f.itlP99SmallMaxUtil > 3 * f.itlP99Big, 'a preempted sequence waits to be recomputed');
  // tokens/s falls with the budget under guaranteed_no_evict
  const tps = BLOCK_CHOICES.map((b) => runKv(['guaranteed_no_evict', b]).summary.outputTokensPerSec);
  for (let i = 1; i < tps.length; i++) assert.ok(tps[i]! <= tps[i - 1]!, `${tps}`);
  // the block map the picture draws: at the opening step (the first preemption) the budget is full
  const shown = runKv(['max_utilization', 16]);
  const map = blockMapAt(shown.events, openingStep(shown))!;
  assert.equal(map.blocks.length, 16);
  assert.ok(map.usage.usedBlocks >= 14, `${map.usage.usedBlocks} used`);
  assert.ok(shown.cells.some((c) => c.kind === 'preempted'));
  // the claim fails where the budget changes nothing
  assert.equal(claimHolds('kvlimit', kvFigures(rows.map((r) => ({ ...r, summary: runKv(['guaranteed_no_evict', 64]).summary })))), false);
});

test('17: without chunking the long prompt stalls the decoders; chunked it does not; the prompt over the budget is refused', () => {
  const rows = chunkRows();
  for (const r of rows) {
    assert.equal(r.completed, r.sent - (r.longRefused ? 1 : 0), `${r.chunked}/${r.budget}`);
  }
  assert.deepEqual(rows.filter((r) => r.longRefused).map((r) => [r.chunked, r.budget]), [[false, 32], [false, 64]]);
  const { figures: f, off, on } = chunkFigures(rows, 64);
  assert.ok(claimHolds('chunked', f));
  assert.equal(off.budget, Math.max(...TOKEN_BUDGETS));
  assert.equal(on.budget, 64);
  assert.equal(off.longPrefillSteps, 1);
  assert.ok(f.chunks >= 4);
  assert.ok(f.stallOff > 1.5 * f.stallOn, `${f.stallOff} vs ${f.stallOn}`);
  // the stall stands out from the usual gap (about 3x on the fitted cost: a 200-token prefill is cheap beside a step's fixed cost)
  assert.ok(f.stallOff > 2.5 * f.gapP50Off, `${f.stallOff} vs ${f.gapP50Off}`);
  // the price: the long prompt's own first token comes later in chunks
  assert.ok(f.longTtftOn > f.longTtftOff);
  // at 256 the prompt fits one step: the verdict compares with the largest budget that chunks it
  const at256 = chunkFigures(rows, 256);
  assert.equal(runChunk([true, 256]).longPrefillSteps, 1);
  assert.equal(at256.figures.onBudget, 64);
  const v = { chunked: true, budget: 256, refused: false, whole: true, prompt: CHUNK_WORKLOAD.longPrompt, stallOff: 'a', stallOn: 'b', gapP50: 'c', longTtftOff: 'd', longTtftOn: 'e', chunks: 4, onBudget: 64 };
  assert.match(CHUNK_DEMO_EN.verdict(v, true), /fits one step/);
  assert.match(CHUNK_DEMO_ZH.verdict({ ...v, whole: false, refused: true, chunked: false, budget: 64 }, false), /拒绝.*没有显示/);
  assert.equal(claimHolds('chunked', { ...f, stallOn: f.stallOff }), false);
  // every sequence's tokens are its tokens alone (batch invariance through chunked prefill)
  const r = simulateChunk(true, 32);
  for (const a of chunkArrivals()) {
    const got = r.events.flatMap((e) => (e.type === 'token' && e.id === a.request.id ? [e.token] : []));
    assert.deepEqual(got, simGenerateAlone(a.request.prompt, a.request.maxTokens), a.request.id);
  }
  assert.ok(!r.events.some((e) => e.type === 'seq_rejected' && e.id === LONG_ID));
});

test('the claims hold on a step cost 3x slower or faster, and on the modelled one: the arrivals are spaced in steps', () => {
  const scaled = (k: number): typeof GEN_COST => ({
    fixed_us: GEN_COST.fixed_us * k, per_sequence_us: GEN_COST.per_sequence_us * k, per_token_us: GEN_COST.per_token_us * k,
    per_extra_call_us: (GEN_COST.per_extra_call_us ?? 0) * k, per_context_us: (GEN_COST.per_context_us ?? 0) * k,
  });
  for (const [name, cost] of [['3x slower', scaled(3)], ['3x faster', scaled(1 / 3)], ['modelled', TINY_LM_MODELLED_COST]] as const) {
    const rebuild = rebuildFigures(BATCHINGS.map((b) => simulateRebuild(b, 1, cost)));
    assert.ok(claimHolds('rebuild', rebuild), `${name}: ${JSON.stringify(rebuild)}`);
    const kv = kvFigures(POLICIES.flatMap((p) => BLOCK_CHOICES.map((b) => simulateKv(p, b, 1, cost))));
    assert.ok(claimHolds('kvlimit', kv), `${name}: ${JSON.stringify(kv)}`);
    const chunk = chunkFigures([false, true].flatMap((c) => TOKEN_BUDGETS.map((b) => simulateChunk(c, b, 1, cost))), 64).figures;
    assert.ok(claimHolds('chunked', chunk), `${name}: ${JSON.stringify(chunk)}`);
  }
});

test('deterministic on the virtual clock: fresh runs give the same figures', () => {
  assert.deepEqual(simulateRebuild('continuous').summary, runRebuild('continuous').summary);
  assert.deepEqual(simulateKv('max_utilization', 8).summary, runKv(['max_utilization', 8]).summary);
  assert.deepEqual(simulateChunk(false, 256).summary, runChunk([false, 256]).summary);
});
