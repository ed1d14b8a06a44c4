import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Rng } from '../load/rng';
import { fitStepCost, stepSampleOf, type StepSample } from './step-cost-fit';
import { stepCostUs, stepShapeCostUs, stepShapeOf, type StepShape } from './sim-step';
import type { StepBatch, StepRow } from './types';

/** a step's shape with no context term: `rows` sequences (+ pads), `tokens` new tokens (+ one per pad) */
const shape = (rows: number, padSlots: number, tokens: number): StepShape => ({ slots: rows + padSlots, tokens: tokens + padSlots, extraCalls: 0, contextSlots: 0 });
const sample = (rows: number, padSlots: number, tokens: number, us: number): StepSample => ({ ...shape(rows, padSlots, tokens), us });

test('fitting steps drawn from a known cost recovers it, pads charged as a sequence and a token each', () => {
  const truth = { fixed_us: 120, per_sequence_us: 35, per_token_us: 4 };
  const rng = new Rng(9);
  const samples: StepSample[] = Array.from({ length: 200 }, () => {
    const rows = rng.int(1, 8);
    const padSlots = rng.int(0, 3);
    const tokens = rows + (rng.next() < 0.3 ? rng.int(1, 60) : 0);
    return sample(rows, padSlots, tokens, stepShapeCostUs(truth, shape(rows, padSlots, tokens)) * (1 + (rng.next() - 0.5) * 0.02));
  });
  const { cost, r2, meanErrorPct } = fitStepCost(samples);
  assert.ok(Math.abs(cost.fixed_us - 120) < 6, `fixed ${cost.fixed_us}`);
  assert.ok(Math.abs(cost.per_sequence_us - 35) < 2, `per sequence ${cost.per_sequence_us}`);
  assert.ok(Math.abs(cost.per_token_us - 4) < 0.3, `per token ${cost.per_token_us}`);
  assert.equal(cost.per_extra_call_us, 0, 'no two-call step: the term is not fitted');
  assert.ok(r2 > 0.99 && meanErrorPct < 2);
});

const row = (id: string, kind: 'prefill' | 'decode', cached: number, fresh: number): StepRow => ({ id, kind, samples: true, table: [], cached, tokens: Array.from({ length: fresh }, () => 1) });
const batch = (rows: StepRow[], padSlots = 0): StepBatch => ({ step: 1, rows, padSlots, tokens: rows.reduce((n, r) => n + r.tokens.length, 0) });

test('a step is charged per model call and per padded context slot, as the server runs it: decode rows (with pads) in one call, prefill rows in another', () => {
  const mixed = batch([row('a', 'decode', 40, 1), row('b', 'decode', 10, 1), row('c', 'prefill', 0, 20)], 2);
  // decode call: 2 rows + 2 pads, padded to 40 cached + 1 new; prefill call: 1 row of 0 + 20
  assert.deepEqual(stepShapeOf(mixed), { slots: 5, tokens: 24, extraCalls: 1, contextSlots: 4 * 41 + 1 * 20 });
  assert.deepEqual(stepShapeOf(batch([row('a', 'decode', 7, 1)])), { slots: 1, tokens: 1, extraCalls: 0, contextSlots: 8 });
  const cost = { fixed_us: 100, per_sequence_us: 10, per_token_us: 1, per_extra_call_us: 300, per_context_us: 0.5 };
  assert.equal(stepCostUs(cost, mixed), 100 + 50 + 24 + 300 + 0.5 * 184);
  // the context and call terms are recovered from steps of every kind
  const rng = new Rng(4);
  const truth = { fixed_us: 200, per_sequence_us: 20, per_token_us: 3, per_extra_call_us: 400, per_context_us: 0.25 };
  const samples = Array.from({ length: 300 }, (_, i) => {
    const rows = Array.from({ length: rng.int(1, 8) }, (_, j) => row(`s${j}`, rng.next() < 0.2 ? 'prefill' : 'decode', rng.int(0, 200), 1));
    for (const r of rows) if (r.kind === 'prefill') r.tokens = Array.from({ length: rng.int(2, 40) }, () => 1);
    const b = batch(rows, i % 5 === 0 ? rng.int(0, 3) : 0);
    return stepSampleOf(b, stepCostUs(truth, b) * (1 + (rng.next() - 0.5) * 0.02));
  });
  const { cost: fitted, r2 } = fitStepCost(samples);
  assert.ok(Math.abs(fitted.per_context_us! - 0.25) < 0.02, `per context ${fitted.per_context_us}`);
  assert.ok(Math.abs(fitted.per_extra_call_us! - 400) < 40, `per extra call ${fitted.per_extra_call_us}`);
  assert.ok(r2 > 0.99);
});

test('a coefficient the data would make negative is dropped, never charged; one shape of step fits its fixed cost', () => {
  // time falls with tokens here: no cost table can say that, so per_token is 0 and the rest refitted
  const falling: StepSample[] = [1, 2, 3, 4].map((t) => sample(1, 0, t, 100 - t));
  const f = fitStepCost(falling);
  assert.equal(f.cost.per_token_us, 0);
  assert.ok(f.cost.fixed_us >= 0 && f.cost.per_sequence_us >= 0);
  assert.ok(Math.abs(f.cost.fixed_us + f.cost.per_sequence_us - 97.5) < 0.01, 'the mean is kept');
  const same = fitStepCost([sample(2, 0, 2, 50), sample(2, 0, 2, 70)]);
  assert.deepEqual(same.cost, { fixed_us: 60, per_sequence_us: 0, per_token_us: 0, per_extra_call_us: 0, per_context_us: 0 });
  assert.throws(() => fitStepCost([]), /no steps/);
});

test('steps the host stretched stay in the cost: the fitted times add up to the measured ones', () => {
  const truth = { fixed_us: 300, per_sequence_us: 50, per_token_us: 10 };
  const samples: StepSample[] = [];
  for (let rows = 1; rows <= 8; rows++) {
    for (const extra of [0, 20]) {
      for (let k = 0; k < 9; k++) samples.push(sample(rows, 0, rows + extra, stepShapeCostUs(truth, shape(rows, 0, rows + extra)) * (k === 0 ? 30 : 1)));
    }
  }
  const { cost } = fitStepCost(samples);
  const fitted = samples.reduce((t, s) => t + stepShapeCostUs(cost, s), 0);
  const measured = samples.reduce((t, s) => t + s.us, 0);
  assert.ok(Math.abs(fitted - measured) / measured < 1e-3, `${fitted} vs ${measured}`);
  assert.ok(cost.fixed_us > truth.fixed_us, 'the stretched steps raise the cost');
});
