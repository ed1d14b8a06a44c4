import { test } from 'node:test';
import assert from 'node:assert/strict';
import { simulateGeneration, type GenBatching } from './simulate';
import { TokenTimeline } from './timeline';
import type { IterativeKnobs } from './types';

const KNOBS: IterativeKnobs = { maxNumSequences: 2, maxNumTokens: 64, enableChunkedContext: false, policy: 'max_utilization', totalBlocks: 32, blockTokens: 4 };
const COST = { fixed_us: 1000, per_sequence_us: 0, per_token_us: 0 };

/** The timeline as text: one line per slot, a letter per step (P prefill, D decode, h held, X preempted, . empty). */
function draw(batching: GenBatching, knobs: IterativeKnobs, arrivals: Parameters<typeof simulateGeneration>[0]['arrivals']): string[] {
  const timeline = new TokenTimeline();
  const r = simulateGeneration({ knobs, cost: COST, arrivals, batching });
  for (const e of r.events) timeline.on(e);
  const steps = r.summary.steps;
  const lines = Array.from({ length: timeline.rows }, () => Array.from({ length: steps }, () => '.'));
  const letter = { prefill: 'P', decode: 'D', held: 'h', preempted: 'X' } as const;
  for (const c of timeline.view()) lines[c.slot]![c.step - 1] = letter[c.kind];
  return lines.map((l) => l.join(''));
}

const arrivals = [
  { atUs: 0, request: { id: 'a', prompt: [1], maxTokens: 2 } },
  { atUs: 0, request: { id: 'b', prompt: [2], maxTokens: 5 } },
  { atUs: 0, request: { id: 'c', prompt: [3], maxTokens: 3 } },
];

test('continuous: c takes the slot a leaves at the next boundary; static: it waits for the batch, a pads it', () => {
  assert.deepEqual(draw('continuous', KNOBS, arrivals), ['PDPDD', 'PDDDD']);
  assert.deepEqual(draw('static', KNOBS, arrivals), ['PDhhhPDD', 'PDDDD...']);
});

test('a preemption is drawn where it happens, and the sequence rejoins in the lowest free slot', () => {
  // 3 blocks of 4 tokens: two sequences of 4-token prompts growing to 8 cannot both fit; the newest gives way.
  const knobs = { ...KNOBS, totalBlocks: 3 };
  const lines = draw('continuous', knobs, [
    { atUs: 0, request: { id: 'old', prompt: [1, 2, 3, 4], maxTokens: 5 } },
    { atUs: 0, request: { id: 'new', prompt: [5, 6, 7, 8], maxTokens: 5 } },
  ]);
  // new gives way at step 2; when old leaves, new rejoins in the lowest free slot (old's) and recomputes.
  assert.deepEqual(lines, ['PDDDDPDDD', 'PX.......']);
});

test('a fold started mid-run draws the sequences already running from their first step seen', () => {
  const many = Array.from({ length: 6 }, (_, i) => ({ atUs: i * 1500, request: { id: `m${i}`, prompt: [i + 1, 2], maxTokens: 6 } }));
  const r = simulateGeneration({ knobs: { ...KNOBS, maxNumSequences: 3 }, cost: COST, arrivals: many, batching: 'continuous' });
  const from = r.events.findIndex((e) => e.type === 'step_started' && e.step === 4);
  const timeline = new TokenTimeline();
  for (const e of r.events.slice(from)) timeline.on(e);
  for (const e of r.events.slice(from)) {
    if (e.type !== 'step_started') continue;
    const drawn = timeline.view().filter((c) => c.step === e.step && c.kind !== 'held' && c.kind !== 'preempted').map((c) => c.id).sort();
    assert.deepEqual(drawn, e.rows.map((row) => row.id).sort(), `step ${e.step}: every sequence that worked has its cell`);
  }
  assert.ok(timeline.rows <= 3, 'in the slots they hold');
});
