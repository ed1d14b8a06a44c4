import { test } from 'node:test';
import assert from 'node:assert/strict';
import { simulateGeneration } from '../iterative/simulate';
import { TokenTimeline, type TimelineCell } from '../iterative/timeline';
import type { IterEvent, IterativeKnobs } from '../iterative/types';
import type { KvBlockMap } from '../kv-cache/block-allocator';
import { decodeBlockMap, decodeCells, encodeBlockMap, encodeCells, GenerationFeed, type GenerationFeedOptions, type GenerationUpdate } from './generation';
import { GenerationView } from './generation-view';

const KNOBS: IterativeKnobs = { maxNumSequences: 4, maxNumTokens: 64, enableChunkedContext: false, policy: 'max_utilization', totalBlocks: 8, blockTokens: 4 };
const COST = { fixed_us: 1000, per_sequence_us: 200, per_token_us: 10 };
const ARRIVALS = Array.from({ length: 16 }, (_, i) => ({
  atUs: i * 2500,
  request: { id: `g${i}`, prompt: Array.from({ length: 2 + (i % 5) }, (_, j) => j + 1), maxTokens: 3 + ((i * 7) % 11) },
}));

function run() {
  return simulateGeneration({ knobs: KNOBS, cost: COST, arrivals: ARRIVALS, batching: 'continuous', blockMaps: true });
}

/** Feeds the events, ticking every `tickUs` (the block map read at each tick, as the gateway reads it), then `tail` more ticks. */
function drive(events: IterEvent[], tickUs: number, o: Partial<GenerationFeedOptions>, tail = 3) {
  const feed = new GenerationFeed('m', '1', o);
  const updates: GenerationUpdate[] = [];
  let blocks: KvBlockMap | undefined;
  let next = tickUs;
  const tick = (t: number) => {
    if (feed.moved) feed.setBlocks(blocks);
    const u = feed.tick(t);
    if (u) updates.push(u);
  };
  for (const e of events) {
    while (e.t >= next) {
      tick(next);
      next += tickUs;
    }
    feed.on(e);
    if ((e.type === 'step_finished' || e.type === 'idle') && e.blocks) blocks = e.blocks;
  }
  for (let i = 0; i < tail; i++, next += tickUs) tick(next);
  return { feed, updates, end: next };
}

/** What a client holds after applying the updates in order. */
function client(updates: GenerationUpdate[]) {
  const view = new GenerationView(10_000);
  for (const u of updates) view.apply(u);
  return { cells: view.cells, points: view.points, kv: view.kv, rows: view.rows };
}

const strip = (cells: readonly TimelineCell[]) => cells.map((c) => ({ ...c, t: 0 }));

test('cells and block maps survive the compact encoding', () => {
  const sim = run();
  const timeline = new TokenTimeline();
  sim.events.forEach(timeline.on);
  assert.ok(timeline.view().some((c) => c.kind === 'preempted'), 'the trace has every kind of cell');
  assert.deepEqual(decodeCells(encodeCells(timeline.view())), strip(timeline.view()));
  const maps = sim.events.flatMap((e) => (e.type === 'step_finished' && e.blocks ? [e.blocks] : []));
  for (const m of maps) assert.deepEqual(decodeBlockMap(encodeBlockMap(m)), m);
  const wire = encodeCells(timeline.view());
  assert.ok(wire.ids.length <= ARRIVALS.length, 'each id once');
});

test('deltas applied in order rebuild the whole timeline, the latest block map and every figures point', () => {
  const sim = run();
  const { feed, updates } = drive(sim.events, 2000, { keepSteps: 10_000, stepsPerMessage: 10_000, pointEveryUs: 10_000 }, 30);
  const timeline = new TokenTimeline(10_000);
  sim.events.forEach(timeline.on);
  const got = client(updates);
  assert.deepEqual(got.cells, strip(timeline.view()));
  assert.equal(got.rows, timeline.rows);
  assert.ok(updates.every((u) => u.skipped_steps === 0 && !u.reset));
  assert.deepEqual(got, client([feed.full()]), 'a new client starting now holds the same');
  assert.equal(got.kv!.usage.usedBlocks, 0, 'the last map sent is the empty one');
  assert.ok(updates.some((u) => u.kv && u.kv.usage.usedBlocks >= 6), 'the maps sent saw the budget fill');
  assert.equal(got.points.reduce((n, p) => n + p.outputTokens, 0), sim.summary.outputTokens, 'the points hold every token');
  assert.equal(got.points.reduce((n, p) => n + p.preemptions, 0), sim.summary.preemptions);
  assert.equal(got.points.at(-1)!.outputTokens, 0, 'one empty point brings the lines down');
  assert.equal(got.points.filter((p) => p.outputTokens === 0 && p.steps === 0).length, 1, 'and no more while idle');
});

test('a fast model: each message holds at most stepsPerMessage steps and says how many it skipped', () => {
  const sim = run();
  const steps = sim.summary.steps;
  const { updates } = drive(sim.events, 40_000, { stepsPerMessage: 5, keepSteps: 20 });
  let sent = 0;
  let skipped = 0;
  for (const u of updates) {
    const distinct = new Set(u.cells.cells.map((c) => c[0]));
    assert.ok(distinct.size <= 5);
    sent += distinct.size;
    skipped += u.skipped_steps;
  }
  assert.ok(skipped > 0);
  assert.equal(sent + skipped, steps, 'every step was sent or counted as skipped');
});

test('nothing moved, nothing sent; an unchanged block map is not sent again', () => {
  const sim = run();
  const { feed, end } = drive(sim.events, 2000, {}, 5);
  assert.equal(feed.tick(end), null);
  const last = sim.events.findLast((e) => e.type === 'idle' && e.blocks);
  feed.setBlocks(last?.type === 'idle' ? last.blocks : undefined);
  assert.equal(feed.tick(end + 1), null, 'the same map again is no change');
});

test('a reloaded model (its steps count from 1 again) resets every client', () => {
  const sim = run();
  const first = drive(sim.events, 2000, {});
  const feed = first.feed;
  const shift = first.end;
  for (const e of sim.events.slice(0, 40)) feed.on({ ...e, t: e.t + shift } as IterEvent);
  const u = feed.tick(shift + 50_000)!;
  assert.equal(u.reset, true);
  assert.equal(Math.min(...u.cells.cells.map((c) => c[0])), 1, 'the new run only');
});

test('the view keeps the newest steps and points, and a reset replaces what it held', () => {
  const sim = run();
  const { updates } = drive(sim.events, 2000, { pointEveryUs: 5000 }, 10);
  const view = new GenerationView(6, 3);
  for (const u of updates) view.apply(u);
  const steps = new Set(view.cells.map((c) => c.step));
  assert.equal(steps.size, 6);
  assert.equal(Math.max(...steps), sim.summary.steps, 'the newest');
  assert.equal(view.points.length, 3);
  view.apply({ model: 'm', version: '1', reset: true, rows: 1, cells: { ids: ['x'], cells: [[1, 0, 0, 3, 0]] }, skipped_steps: 0, points: [] });
  assert.deepEqual(view.cells.map((c) => [c.id, c.kind, c.tokens]), [['x', 'prefill', 3]]);
  assert.equal(view.kv, undefined);
  assert.equal(view.points.length, 0);
});
