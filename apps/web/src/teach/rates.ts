/**
 * Offered rates from a model's own cost, never from constants: the page may simulate with a live
 * server's calibration (another machine, several times faster or slower), and an "overload" fixed for one
 * table is a moderate load for another, where a lesson would no longer show its point.
 */
import { baseLatencyUs, type CostModel } from '@inferscope/core/sim';
import type { SimModel } from './sim-types';

/** Requests per second one instance serves in back-to-back batches of `size` (held: each batch handed over while the one before computes). */
export const servedPerS = (cost: CostModel, size: number): number => (size * 1e6) / baseLatencyUs(cost, size, true);

/** Two significant figures, so a title reads "15k/s", not "14.6k/s". */
export function roundRate(perS: number): number {
  const step = 10 ** Math.max(0, Math.floor(Math.log10(perS)) - 1);
  return Math.max(1, Math.round(perS / step) * step);
}

/** A moderate load: about a third of what batches of one serve, so an idle instance takes most requests alone. */
export const moderateRate = (cost: CostModel): number => roundRate(0.3 * servedPerS(cost, 1));

/** What one instance of `m` serves in back-to-back batches of its max_batch_size: its limit, per instance. */
export const fullBatchesPerS = (m: SimModel): number => servedPerS(m.cost, Math.max(1, Number(m.config.max_batch_size ?? 1)));
