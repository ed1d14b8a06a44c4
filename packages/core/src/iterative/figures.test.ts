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
