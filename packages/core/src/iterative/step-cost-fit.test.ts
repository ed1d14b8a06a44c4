import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Rng } from '../load/rng';
import { fitStepCost, type StepSample } from './step-cost-fit';
import { stepCostUs } from './sim-step';

const shape = (rows: number, padSlots: number, tokens: number) => ({ rows: Array.from({ length: rows }), padSlots, tokens }) as never;

test('fitting steps drawn from a known cost recovers it, pads charged as a sequence and a token each', () => {
  const truth = { fixed_us: 120, per_sequence_us: 35, per_token_us: 4 };
  const rng = new Rng(9);
  const samples: StepSample[] = Array.from({ length: 200 }, () => {
    const rows = rng.int(1, 8);
    const padSlots = rng.int(0, 3);
    const tokens = rows + (rng.next() < 0.3 ? rng.int(1, 60) : 0);
    return { rows, padSlots, tokens, us: stepCostUs(truth, shape(rows, padSlots, tokens)) * (1 + (rng.next() - 0.5) * 0.02) };
  });
  const { cost, r2, meanErrorPct } = fitStepCost(samples);
  assert.ok(Math.abs(cost.fixed_us - 120) < 6, `fixed ${cost.fixed_us}`);
  assert.ok(Math.abs(cost.per_sequence_us - 35) < 2, `per sequence ${cost.per_sequence_us}`);
  assert.ok(Math.abs(cost.per_token_us - 4) < 0.3, `per token ${cost.per_token_us}`);
  assert.ok(r2 > 0.99 && meanErrorPct < 2);
});

test('a coefficient the data would make negative is dropped, never charged; one shape of step fits its fixed cost', () => {
  // time falls with tokens here: no cost table can say that, so per_token is 0 and the rest refitted
  const falling: StepSample[] = [1, 2, 3, 4].map((t) => ({ rows: 1, padSlots: 0, tokens: t, us: 100 - t }));
  const f = fitStepCost(falling);
  assert.equal(f.cost.per_token_us, 0);
  assert.ok(f.cost.fixed_us >= 0 && f.cost.per_sequence_us >= 0);
  assert.ok(Math.abs(f.cost.fixed_us + f.cost.per_sequence_us - 97.5) < 0.01, 'the mean is kept');
  const same = fitStepCost([{ rows: 2, padSlots: 0, tokens: 2, us: 50 }, { rows: 2, padSlots: 0, tokens: 2, us: 70 }]);
  assert.deepEqual(same.cost, { fixed_us: 60, per_sequence_us: 0, per_token_us: 0 });
  assert.throws(() => fitStepCost([]), /no steps/);
});

test('steps the host stretched stay in the cost: the fitted times add up to the measured ones', () => {
  const truth = { fixed_us: 300, per_sequence_us: 50, per_token_us: 10 };
  const samples: StepSample[] = [];
  for (let rows = 1; rows <= 8; rows++) {
    for (const extra of [0, 20]) {
      for (let k = 0; k < 9; k++) samples.push({ rows, padSlots: 0, tokens: rows + extra, us: stepCostUs(truth, shape(rows, 0, rows + extra)) * (k === 0 ? 30 : 1) });
    }
  }
  const { cost } = fitStepCost(samples);
  const fitted = samples.reduce((t, s) => t + stepCostUs(cost, shape(s.rows, s.padSlots, s.tokens)), 0);
  const measured = samples.reduce((t, s) => t + s.us, 0);
  assert.ok(Math.abs(fitted - measured) / measured < 1e-3, `${fitted} vs ${measured}`);
  assert.ok(cost.fixed_us > truth.fixed_us, 'the stretched steps raise the cost');
});
