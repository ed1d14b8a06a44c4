import { test } from 'node:test';
import assert from 'node:assert/strict';
import { simulateGeneration } from './simulate';
import type { IterativeKnobs } from './types';

const KNOBS: IterativeKnobs = { maxNumSequences: 4, maxNumTokens: 64, enableChunkedContext: false, policy: 'guaranteed_no_evict', totalBlocks: 32, blockTokens: 4 };

test('a closed loop submits each client its next request a gap after its last one ended, never more than the concurrency at once', () => {
  // steps of 10 + 2 x rows ms; two clients; A (2 tokens) and B (3) at 0, C (1) when A's client is back
  const requests = [['A', 2], ['B', 3], ['C', 1]].map(([id, maxTokens]) => ({ id: id as string, prompt: [1], maxTokens: maxTokens as number }));
  const r = simulateGeneration({ knobs: KNOBS, cost: { fixed_us: 10_000, per_sequence_us: 2_000, per_token_us: 0 }, arrivals: [], batching: 'continuous', closedLoop: { concurrency: 2, requests, gapUs: 1_000 } });
  // A, B: steps at 0 (14 ms) and 14 (28 ms): A ends at 28; B alone at 28 (40); C arrives at 29, runs at 40 (52)
  assert.deepEqual([...r.outcomes].map(([id, o]) => [id, o.endedAt]), [['A', 28_000], ['B', 40_000], ['C', 52_000]]);
  const queued = r.events.filter((e) => e.type === 'seq_queued').map((e) => [e.id, e.t]);
  assert.deepEqual(queued, [['A', 0], ['B', 0], ['C', 29_000]]);
  const one = simulateGeneration({ knobs: KNOBS, cost: { fixed_us: 10_000, per_sequence_us: 2_000, per_token_us: 0 }, arrivals: [], batching: 'continuous', closedLoop: { concurrency: 1, requests } });
  const steps = one.events.filter((e) => e.type === 'step_started');
  assert.ok(steps.every((s) => s.rows.length === 1), 'concurrency 1: one sequence at a time');
  assert.equal(one.outcomes.size, 3);
});
