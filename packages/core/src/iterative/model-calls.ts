/**
 * How one step's rows become model calls, the rule the server's step executor runs and the simulator's
 * step cost charges: the decode rows (one new token each, with a request-level batch's pad rows) in one
 * call, the prefill rows (a prompt or a chunk of one) in another. One padded tensor would pad every
 * decode row to the longest prompt's length, so a sequence joining would multiply the step's work; rows
 * are independent sequences, so two calls give the tokens one would.
 */
import type { StepBatch } from './types';

export interface ModelCall {
  /** indices into the step's rows */
  rows: number[];
  /** pad rows computed with them (a request-level batch's finished members: the first call carries them) */
  padRows: number;
  /** the call's tensor rows (rows + pads) and its padded length: longest cached + longest new */
  width: number;
  length: number;
}

export function stepModelCalls(batch: Pick<StepBatch, 'rows' | 'padSlots'>): ModelCall[] {
  const decode: number[] = [];
  const prefill: number[] = [];
  batch.rows.forEach((r, i) => (r.kind === 'decode' ? decode : prefill).push(i));
  return [decode, prefill]
    .filter((g) => g.length > 0)
    .map((rows, i) => {
      const padRows = i === 0 ? batch.padSlots : 0;
      let cached = 0;
      let fresh = 0;
      for (const r of rows) {
        cached = Math.max(cached, batch.rows[r]!.cached);
        fresh = Math.max(fresh, batch.rows[r]!.tokens.length);
      }
      return { rows, padRows, width: rows.length + padRows, length: cached + fresh };
    });
}
