/**
 * How one step's rows become model calls, the rule the server's step executor runs and the simulator's
 * step cost charges.
 *
 * - The prefill rows (a prompt or a chunk of one) in one call, the decode rows (one new token each) in
 *   others: one padded tensor would pad every decode row to the longest prompt's length, so a sequence
 *   joining would multiply the step's work.
 * - The decode rows in as many calls as pay: a call's tensors are as long as its longest context (past +
 *   new) for every row, and a step's rows are of every age under continuous batching, so one 170-token
 *   sequence beside seven of 15 pads all eight to 171 slots. Sorted by context, the rows are cut into
 *   runs where the padding a cut saves is worth more than the call it adds (CALL_COST_SLOTS).
 * - A request-level batch's finished members (pad rows) go with the shortest decode run: a pad row
 *   attends to its own token only, so it costs least there.
 *
 * Rows are independent sequences, so any grouping gives the tokens one call would.
 */
import type { StepBatch } from './types';

export interface ModelCall {
  /** indices into the step's rows */
  rows: number[];
  /** pad rows computed with them (a request-level batch's finished members) */
  padRows: number;
  /** the call's tensor rows (rows + pads) and its padded length: longest cached + longest new */
  width: number;
  length: number;
}

/**
 * What one more model call costs, in padded context slots (a row x a position of past or new). Measured
 * on tiny_lm_generate through onnxruntime's native session (bench/generate/README.md, "the decode rows
 * cut by context"): one 170-token row beside seven of 15 ran in 1,040 µs as one call and 496 µs as two.
 * Over whole runs of the bench's workload the steps ran 1.31x faster at 32 sequence slots and the same
 * (x1.01) at 8 with this value; 150 lost 2% at 8 slots, 600 and 1,000 gained less at 32.
 */
export const CALL_COST_SLOTS = 300;

export function stepModelCalls(batch: Pick<StepBatch, 'rows' | 'padSlots'>): ModelCall[] {
  const decode: number[] = [];
  const prefill: number[] = [];
  batch.rows.forEach((r, i) => (r.kind === 'decode' ? decode : prefill).push(i));
  const calls = decodeRuns(batch, decode).map((rows, i) => callOf(batch, rows, i === 0 ? batch.padSlots : 0));
  if (prefill.length > 0) calls.push(callOf(batch, prefill, calls.length === 0 ? batch.padSlots : 0));
  return calls;
}

function callOf(batch: Pick<StepBatch, 'rows'>, rows: number[], padRows: number): ModelCall {
  let cached = 0;
  let fresh = 0;
  for (const r of rows) {
    cached = Math.max(cached, batch.rows[r]!.cached);
    fresh = Math.max(fresh, batch.rows[r]!.tokens.length);
  }
  return { rows, padRows, width: rows.length + padRows, length: cached + fresh };
}

/**
 * The decode rows cut into runs of neighbouring contexts (shortest first) at the least cost: each run
 * costs CALL_COST_SLOTS plus its rows (the pads in the first) times its longest context. Exact, by
 * dynamic programming over the cut points (a step has at most max_num_sequences rows).
 */
function decodeRuns(batch: Pick<StepBatch, 'rows' | 'padSlots'>, decode: number[]): number[][] {
  if (decode.length === 0) return [];
  const rows = [...decode].sort((a, b) => batch.rows[a]!.cached - batch.rows[b]!.cached || a - b);
  const n = rows.length;
  // each row's context once the step's tokens are in
  const len = rows.map((r) => batch.rows[r]!.cached + batch.rows[r]!.tokens.length);
  // best[j]: least cost of the first j rows; cut[j]: where the last run of that best starts
  const best = [0];
  const cut = [0];
  for (let j = 1; j <= n; j++) {
    best[j] = Infinity;
    for (let i = 0; i < j; i++) {
      const width = j - i + (i === 0 ? batch.padSlots : 0);
      const cost = best[i]! + CALL_COST_SLOTS + width * len[j - 1]!;
      if (cost < best[j]!) {
        best[j] = cost;
        cut[j] = i;
      }
    }
  }
  const runs: number[][] = [];
  for (let j = n; j > 0; j = cut[j]!) runs.unshift(rows.slice(cut[j]!, j));
  return runs;
}
