import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Rng } from '../load/rng';
import { CALL_COST_SLOTS, stepModelCalls, type ModelCall } from './model-calls';
import type { StepRow } from './types';

const decode = (id: string, cached: number): StepRow => ({ id, kind: 'decode', samples: true, table: [], cached, tokens: [1] });
const prefill = (id: string, tokens: number, cached = 0): StepRow => ({ id, kind: 'prefill', samples: true, table: [], cached, tokens: new Array<number>(tokens).fill(1) });
const ids = (rows: readonly StepRow[], calls: ModelCall[]) => calls.map((c) => c.rows.map((i) => rows[i]!.id));
const cost = (calls: ModelCall[]) => calls.reduce((t, c) => t + CALL_COST_SLOTS + c.width * c.length, 0);

test('decode rows of like contexts share one call; a prefill gets its own', () => {
  const rows = [decode('a', 40), prefill('p', 20), decode('b', 44), decode('c', 38)];
  const calls = stepModelCalls({ rows, padSlots: 0 });
  assert.deepEqual(ids(rows, calls), [['c', 'a', 'b'], ['p']]);
  assert.deepEqual(calls.map((c) => [c.width, c.length]), [[3, 45], [1, 20]]);
});

test('one long sequence beside short ones: the decode rows are cut where the padding saved pays for the call', () => {
  const rows = [decode('long', 170), ...Array.from({ length: 7 }, (_, i) => decode(`s${i}`, 15))];
  const calls = stepModelCalls({ rows, padSlots: 0 });
  assert.deepEqual(ids(rows, calls), [['s0', 's1', 's2', 's3', 's4', 's5', 's6'], ['long']]);
  assert.ok(cost(calls) < CALL_COST_SLOTS + 8 * 171, 'cheaper than one call padded to 171');
  // a cut that saves less than a call costs is not made
  const near = [decode('x', 60), ...Array.from({ length: 6 }, (_, i) => decode(`y${i}`, 20))];
  assert.equal(stepModelCalls({ rows: near, padSlots: 0 }).length, 1, `saves ${7 * 61 - (61 + 6 * 21)} slots, under ${CALL_COST_SLOTS}`);
});

test("a request-level batch's pad rows go with the shortest run; with no decode row, with the prefill", () => {
  const rows = [decode('long', 200), decode('short', 10)];
  const calls = stepModelCalls({ rows, padSlots: 6 });
  assert.deepEqual(ids(rows, calls), [['short'], ['long']]);
  assert.deepEqual(calls.map((c) => c.padRows), [6, 0]);
  assert.deepEqual(stepModelCalls({ rows: [prefill('p', 8)], padSlots: 3 }).map((c) => c.padRows), [3]);
});

test('property: every row in exactly one call, and the cuts are the cheapest of every way to cut the sorted decode rows', () => {
  const rng = new Rng(52);
  for (let round = 0; round < 300; round++) {
    const n = 1 + Math.floor(rng.next() * 9);
    const rows = Array.from({ length: n }, (_, i) => (rng.next() < 0.2 ? prefill(`p${i}`, 1 + Math.floor(rng.next() * 30)) : decode(`d${i}`, Math.floor(rng.next() * 250))));
    const padSlots = rng.next() < 0.3 ? Math.floor(rng.next() * 5) : 0;
    const calls = stepModelCalls({ rows, padSlots });
    assert.deepEqual(calls.flatMap((c) => c.rows).sort((a, b) => a - b), [...rows.keys()]);
    assert.equal(calls.reduce((t, c) => t + c.padRows, 0), padSlots);
    // brute force: every subset of cut points of the decode rows sorted by context
    const sorted = [...rows.keys()].filter((i) => rows[i]!.kind === 'decode').sort((a, b) => rows[a]!.cached - rows[b]!.cached || a - b);
    const pre = [...rows.keys()].filter((i) => rows[i]!.kind === 'prefill');
    let cheapest = Infinity;
    const m = sorted.length;
    for (let mask = 0; mask < (m > 0 ? 1 << (m - 1) : 1); mask++) {
      const runs: number[][] = [];
      let run: number[] = [];
      sorted.forEach((r, k) => {
        run.push(r);
        if (k === m - 1 || mask & (1 << k)) (runs.push(run), (run = []));
      });
      const withPads = runs.map((r, k) => ({ rows: r, pads: k === 0 ? padSlots : 0 }));
      if (pre.length > 0) withPads.push({ rows: pre, pads: runs.length === 0 ? padSlots : 0 });
      const c = withPads.reduce((t, g) => t + CALL_COST_SLOTS + (g.rows.length + g.pads) * Math.max(...g.rows.map((i) => rows[i]!.cached)) + (g.rows.length + g.pads) * Math.max(...g.rows.map((i) => rows[i]!.tokens.length)), 0);
      cheapest = Math.min(cheapest, c);
    }
    assert.equal(cost(calls), cheapest, JSON.stringify({ rows: rows.map((r) => [r.kind, r.cached, r.tokens.length]), padSlots }));
  }
});
