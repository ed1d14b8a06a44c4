import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GenFigures, type GenWindow } from './figures';
import { simulateGeneration } from './simulate';
import type { IterativeKnobs } from './types';

const KNOBS: IterativeKnobs = { maxNumSequences: 4, maxNumTokens: 64, enableChunkedContext: false, policy: 'max_utilization', totalBlocks: 10, blockTokens: 4 };
const COST = { fixed_us: 1000, per_sequence_us: 200, per_token_us: 10 };
const arrivals = Array.from({ length: 12 }, (_, i) => ({
  atUs: i * 3000,
  request: { id: `r${i}`, prompt: Array.from({ length: 3 + (i % 4) }, (_, j) => j + 1), maxTokens: 4 + ((i * 5) % 9) },
}));

/** The run's events through a GenFigures, a window taken every `everyUs` of the events' clock. */
function windowsOf(everyUs: number, lifetime: boolean) {
  const sim = simulateGeneration({ knobs: KNOBS, cost: COST, arrivals, batching: 'continuous' });
  const figures = new GenFigures({ lifetime });
  const windows: GenWindow[] = [];
  let next = everyUs;
  for (const e of sim.events) {
    while (e.t >= next) {
      windows.push(figures.takeWindow(next));
      next += everyUs;
    }
    figures.on(e);
  }
  windows.push(figures.takeWindow(next));
  return { sim, figures, windows };
}

test('windows split the run: their tokens, first tokens and gaps add up to the whole run', () => {
  const { sim, windows } = windowsOf(10_000, true);
  const whole = sim.summary;
  assert.ok(whole.preemptions > 0, 'the trace preempts (a tight KV budget)');
  assert.ok(windows.length > 5);
  assert.equal(windows.reduce((n, w) => n + w.outputTokens, 0), whole.outputTokens);
  assert.equal(windows.reduce((n, w) => n + w.completed, 0), whole.completed);
  assert.equal(windows.reduce((n, w) => n + w.preemptions, 0), whole.preemptions);
  assert.equal(windows.reduce((n, w) => n + w.steps, 0), whole.steps);
  assert.equal(Math.max(...windows.map((w) => w.ttftUs?.max ?? 0)), whole.ttftUs.max, 'the worst first token is in some window');
  assert.equal(Math.max(...windows.map((w) => w.interTokenUs?.max ?? 0)), whole.interTokenUs.max);
  for (const w of windows) {
    assert.equal(w.spanUs, 10_000);
    assert.equal(w.outputTokensPerSec, w.outputTokens * 100);
    if (w.outputTokens === 0) assert.equal(w.ttftUs, null);
  }
  assert.deepEqual(windows.at(-1)!.kv, { usedBlocks: 0, totalBlocks: 10 }, 'the last window ends with every block free');
  assert.equal(windows.at(-1)!.openSequences, 0);
  assert.ok(windows.some((w) => (w.kv?.usedBlocks ?? 0) > 5), 'and an earlier one saw the blocks fill');
});

test('without lifetime samples the windows are the same and nothing per token or per step is kept', () => {
  const a = windowsOf(7_000, true);
  const b = windowsOf(7_000, false);
  assert.deepEqual(b.windows, a.windows);
  const s = b.figures.summary();
  assert.equal(s.kvTimeline.length, 0);
  assert.equal(s.completed, a.figures.summary().completed, 'the counts are kept');
});

test('started mid-run, the windows count every token from there, and no TTFT for the sequences queued before', () => {
  const sim = simulateGeneration({ knobs: KNOBS, cost: COST, arrivals, batching: 'continuous' });
  const after = sim.events.slice(Math.floor(sim.events.length / 2));
  const queuedAfter = new Set(after.flatMap((e) => (e.type === 'seq_queued' ? [e.id] : [])));
  const firsts = after.filter((e) => e.type === 'token' && e.index === 0);
  assert.ok(firsts.some((e) => e.type === 'token' && !queuedAfter.has(e.id)) && queuedAfter.size > 0, 'the cut falls among running sequences');
  const figures = new GenFigures({ lifetime: false });
  let tokens = 0;
  let ttfts = 0;
  for (const e of after) {
    figures.on(e);
    // a window per event: each first token's TTFT is seen alone
    const w = figures.takeWindow(e.t);
    tokens += w.outputTokens;
    if (w.ttftUs) ttfts++;
  }
  assert.equal(tokens, after.filter((e) => e.type === 'token').length, 'every token counts');
  assert.equal(ttfts, firsts.filter((e) => e.type === 'token' && queuedAfter.has(e.id)).length, 'a TTFT only where the queueing was seen');
  assert.equal(figures.takeWindow(after.at(-1)!.t).openSequences, 0, 'the sequences seen mid-run close when they finish');
});
