/**
 * Calibration: a model's measured batch times on one backend and instance kind, written by
 * `inferscope calibrate` (real onnxruntime sessions at batch 1..64 on the machine it ran on) and turned
 * into a CostModel here. The table is what the simulator uses (interpolated between measured sizes); the
 * linear fit (fixed + per item, least squares) is kept beside it because it is what a teacher explains.
 */
import type { CostModel } from './cost-model';
import { fitLine } from '../util/fit-line';
import { CalibrationSchema, schemaProblems, type Calibration } from './schemas';

export type { Calibration };

export class CalibrationError extends Error {
  override name = 'CalibrationError';
}

/** util's least-squares fit, refusing an empty table in a calibration's words. */
export function fitLinear(table: Record<string, number>, weights?: Record<string, number>): { fixed_us: number; per_item_us: number } {
  if (Object.keys(table).length === 0) throw new CalibrationError('cannot fit an empty table');
  return fitLine(table, weights);
}

/** The calibration in `input`, or CalibrationError naming every field that is wrong (schemas.ts). */
export function validateCalibration(input: unknown, what = 'calibration'): Calibration {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new CalibrationError(`${what} must be a JSON object`);
  const problems = schemaProblems(CalibrationSchema, input, '');
  if (problems.length) throw new CalibrationError(`invalid ${what}: ${problems.join('; ')}`);
  return input as Calibration;
}

/**
 * The cost model a calibration stands for (its CPU kind makes it share the host's cores with other CPU
 * instances): the table, the fitted slope beyond it, the table of batches held behind a running one, and
 * the measured spread of batch times, interruptions and cost after idle unless a hand-set jitter is asked
 * for (`spread: false`: every batch takes exactly its median, as teaching mode wants).
 */
export function costFromCalibration(cal: Calibration, jitter = 0, spread = true): CostModel {
  const noise = jitter > 0 ? { jitter } : spread && cal.spread ? { spread: cal.spread, ...(cal.interruptions ? { interruptions: cal.interruptions } : {}) } : {};
  const held = cal.held_us ? { held_table: { ...cal.held_us } } : {};
  const idle = spread && cal.idle_penalty_us ? { idle_penalty_us: cal.idle_penalty_us } : {};
  return { table: { ...cal.table_us }, per_item_us: cal.fit.per_item_us, kind: cal.kind, ...held, ...noise, ...idle };
}

/**
 * Samples per second at batch b over samples per second at batch 1: how much batching pays, through the
 * server (`table_us`) or in the backend alone (`session_us`).
 */
export function batchingGain(cal: Calibration, b: number, which: 'table_us' | 'session_us' = 'table_us'): number {
  const t = cal[which] ?? {};
  const t1 = t['1'];
  const tb = t[String(b)];
  if (!t1 || !tb) throw new CalibrationError(`${cal.model}: no measurement at batch 1 and ${b}`);
  return (t1 * b) / tb;
}
