/**
 * How long a simulated batch takes. Either linear (fixed + per item, the shape measured on real backends:
 * a fixed launch/overhead cost plus a per-sample cost) or a table per batch size fitted from real runs
 * (linear interpolation between entries, the last slope beyond them). Optional jitter (relative, uniform
 * +-jitter) comes from the simulation's seeded Rng, so it is reproducible.
 */
import type { Rng } from '../load/rng';
import { EmpiricalDistribution, type Quantiles } from './distribution';
import { CostModelSchema, IdlePenaltySchema, schemaProblems, type CostModel, type StallProfile } from './schemas';

export type { CostModel };

export const DEFAULT_COST: CostModel = { fixed_us: 2000, per_item_us: 250 };

export class CostModelError extends Error {
  override name = 'CostModelError';
}

/** The cost model in `input`, or CostModelError naming every field that is wrong (schemas.ts). */
export function validateCost(input: unknown, what = 'cost model'): CostModel {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new CostModelError(`${what} must be a JSON object`);
  const problems = schemaProblems(CostModelSchema, input, '');
  const o = input as CostModel;
  if (o.table === undefined && o.fixed_us === undefined && o.per_item_us === undefined) problems.push('give fixed_us/per_item_us or a table');
  if (problems.length) throw new CostModelError(`invalid ${what}: ${problems.join('; ')}`);
  return o;
}

/**
 * Deterministic part of the latency of a batch of `size` samples, µs. Outside a table's sizes the cost
 * continues from the nearest entry with `per_item_us` when given (a calibration's fitted slope: a live
 * table only has the sizes the traffic formed), else with the slope of the table's end segment.
 * `held`: the batch was handed to its instance while the instance computed the one before, and begins the
 * moment that one ends: the held table's time when the cost model has one (the hand-off is hidden).
 */
export function baseLatencyUs(cost: CostModel, size: number, held = false): number {
  const table = held && cost.held_table ? cost.held_table : cost.table;
  if (table) return tableLatencyUs(table, size, cost.per_item_us, cost.fixed_us);
  return (cost.fixed_us ?? 0) + (cost.per_item_us ?? 0) * size;
}

function tableLatencyUs(table: Record<string, number>, size: number, slope: number | undefined, floor: number | undefined): number {
  const pts = Object.entries(table).map(([k, v]) => [Number(k), v] as const).sort((a, b) => a[0] - b[0]);
  if (slope !== undefined) {
    const [lo, hi] = [pts[0], pts[pts.length - 1]];
    if (size >= hi[0]) return hi[1] + slope * (size - hi[0]);
    if (size <= lo[0]) return Math.max(floor ?? 0, lo[1] - slope * (lo[0] - size));
  }
  if (pts.length === 1) return (pts[0][1] * size) / pts[0][0];
  let i = pts.findIndex((p) => p[0] >= size);
  if (i === 0) i = 1;
  if (i < 0) i = pts.length - 1;
  const [x0, y0] = pts[i - 1];
  const [x1, y1] = pts[i];
  return Math.max(0, y0 + ((y1 - y0) * (size - x0)) / (x1 - x0));
}

const spreads = new WeakMap<Quantiles, EmpiricalDistribution>();
/** The distribution of a quantile table, built once per table (tables are immutable once validated). */
export const distributionOf = (q: Quantiles): EmpiricalDistribution => {
  let d = spreads.get(q);
  if (!d) spreads.set(q, (d = new EmpiricalDistribution(q)));
  return d;
};

/**
 * µs of one batch: the base time (`slowdown` >= 1: how much slower than alone the instance runs, CPU
 * contention, see CpuHost) times a draw from the spread, plus the interruptions that fall into it (the
 * instance's thread descheduled: a time, not a factor, so a short batch is hit as seldom and as long as
 * the measurement says, not a multiple of its size).
 */
export function latencyUs(cost: CostModel, size: number, rng: Rng, slowdown = 1, held = false): number {
  const base = baseLatencyUs(cost, size, held) * slowdown;
  let v = base;
  if (cost.spread) v = base * distributionOf(cost.spread).sample(rng);
  else if ((cost.jitter ?? 0) > 0) v = base * (1 + cost.jitter! * (2 * rng.next() - 1));
  if (cost.interruptions) v += interruptionsUs(cost.interruptions, v, rng);
  return Math.max(1, Math.round(v));
}

/** µs of interruptions in `spanUs` of work: Poisson starts at the profile's rate, lengths from its quantiles. */
function interruptionsUs(p: StallProfile, spanUs: number, rng: Rng): number {
  if (p.rate_per_s <= 0) return 0;
  const meanGapUs = 1e6 / p.rate_per_s;
  let extra = 0;
  for (let t = -Math.log(1 - rng.next()) * meanGapUs; t < spanUs; t += -Math.log(1 - rng.next()) * meanGapUs) extra += Math.max(0, distributionOf(p.duration_us).sample(rng));
  return extra;
}

export function validateIdlePenalty(t: unknown, what = 'idle_penalty_us'): string[] {
  return schemaProblems(IdlePenaltySchema, t, what);
}

/** Extra µs a batch costs after its instance sat idle for `idleUs` (0 without an idle table). */
export function idlePenaltyUs(cost: CostModel, idleUs: number): number {
  const t = cost.idle_penalty_us;
  if (!t) return 0;
  const pts = Object.entries(t).map(([k, v]) => [Number(k), v] as const).sort((a, b) => a[0] - b[0]);
  if (idleUs <= pts[0][0]) return pts[0][1];
  for (let i = 1; i < pts.length; i++) {
    if (idleUs <= pts[i][0]) return pts[i - 1][1] + ((pts[i][1] - pts[i - 1][1]) * (idleUs - pts[i - 1][0])) / (pts[i][0] - pts[i - 1][0]);
  }
  return pts[pts.length - 1][1];
}

/** A cost model as the autotuner's batch cost (µs for a batch of n): the table interpolated as the simulator does. */
export function costOf(model: CostModel): (n: number) => number {
  return (n) => baseLatencyUs(model, n);
}
