import { test } from 'node:test';
import assert from 'node:assert/strict';
import { simulateGeneration, TokenTimeline, type IterativeKnobs } from '@inferscope/core/iterative';
import { cellsWindow, timelineRows } from '../src/charts/generate/timeline-runs.ts';
import { gridColumns } from '../src/charts/generate/KvBlockMap.tsx';
import { seqColour } from '../src/charts/generate/seq-colour.ts';

const COST = { fixed_us: 1000, per_sequence_us: 100, per_token_us: 10 };

function run(knobs: Partial<IterativeKnobs>, lengths: number[][]) {
  const k: IterativeKnobs = { maxNumSequences: 3, maxNumTokens: 64, enableChunkedContext: false, policy: 'max_utilization', totalBlocks: 64, blockTokens: 4, ...knobs };
  const arrivals = lengths.map(([at, prompt, out], i) => ({ atUs: at!, request: { id: `s${i}`, prompt: Array.from({ length: prompt! }, (_, j) => j + 1), maxTokens: out! } }));
  const timeline = new TokenTimeline();
  const sim = simulateGeneration({ knobs: k, cost: COST, arrivals, batching: 'continuous' });
  sim.events.forEach(timeline.on);
  return { timeline, sim };
}

test('runs merge a sequence\'s consecutive steps of one kind and count every cell once', () => {
  const { timeline } = run({}, [[0, 5, 6], [0, 3, 2], [0, 4, 9], [2500, 2, 4]]);
  const cells = timeline.view();
  const window = cellsWindow(cells)!;
  const rows = timelineRows(cells, timeline.rows, window);
  assert.equal(rows.length, 3);
  const counted = rows.reduce((n, r) => n + r.cells.prefill + r.cells.decode + r.cells.held + r.cells.preempted, 0);
  assert.equal(counted, cells.length, 'each cell in one row');
  for (const r of rows) {
    const steps = r.runs.reduce((n, run) => n + run.to - run.from + 1, 0);
    assert.equal(steps, r.cells.prefill + r.cells.decode + r.cells.held, `slot ${r.slot}: runs cover its cells`);
    for (const [a, b] of r.runs.slice(1).map((x, i) => [r.runs[i]!, x] as const)) assert.ok(b.from > a.to, 'runs do not overlap');
  }
  // s1 (2 tokens) leaves after step 2; s3 arrives later and takes its slot: two joins in that row
  const shared = rows.find((r) => r.ids.includes('s3'))!;
  assert.deepEqual(shared.ids, ['s1', 's3']);
  assert.equal(shared.runs.filter((x) => x.joins).length, 2);
  const s0 = rows.find((r) => r.ids[0] === 's0')!;
  assert.deepEqual(s0.runs.map((x) => [x.kind, x.to - x.from + 1, x.tokens]), [['prefill', 1, 5], ['decode', 5, 5]], 'one prefill of the prompt, then 5 decode steps as one run');
});

test('a preemption is a mark of its own; the sequence rejoins later as a new join', () => {
  // 6 blocks of 4 tokens and three long sequences: the newest is preempted when the others grow
  const { timeline, sim } = run({ totalBlocks: 6 }, [[0, 4, 8], [0, 4, 8], [0, 4, 8]]);
  assert.ok(sim.summary.preemptions > 0, 'the trace preempts');
  const rows = timelineRows(timeline.view(), timeline.rows, cellsWindow(timeline.view())!);
  const marks = rows.flatMap((r) => r.preempted);
  assert.equal(marks.length, sim.summary.preemptions);
  for (const m of marks) {
    const rejoin = rows.flatMap((r) => r.runs).find((x) => x.id === m.id && x.from > m.step);
    assert.ok(rejoin && rejoin.joins && rejoin.kind === 'prefill', `${m.id} is recomputed after its preemption at step ${m.step}, joining again`);
  }
});

test('a step window keeps only its steps', () => {
  const { timeline } = run({}, [[0, 5, 12], [0, 3, 12]]);
  const rows = timelineRows(timeline.view(), timeline.rows, { from: 4, to: 6 });
  for (const r of rows) for (const x of r.runs) assert.ok(x.from >= 4 && x.to <= 6);
  assert.equal(rows.reduce((n, r) => n + r.cells.decode, 0), 6, 'two sequences decoding in 3 steps');
});

test('block grid and colours: a wide band, and neighbours in admission differ in colour', () => {
  assert.equal(gridColumns(256), 28);
  assert.ok(Math.ceil(256 / gridColumns(256)) <= 10);
  assert.equal(gridColumns(3), 3);
  assert.equal(gridColumns(4096), 64);
  const ids = Array.from({ length: 10 }, (_, i) => `tiny_lm_generate-${i + 40}`);
  assert.equal(new Set(ids.map(seqColour)).size, 10);
  assert.equal(seqColour('abc'), seqColour('abc'));
});
