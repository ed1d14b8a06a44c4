/**
 * How long a simulated batch takes. Either linear (fixed + per item, the shape measured on real backends:
 * a fixed launch/overhead cost plus a per-sample cost) or a table per batch size fitted from real runs
 * (linear interpolation between entries, the last slope beyond them). Optional jitter (relative, uniform
 * +-jitter) comes from the simulation's seeded Rng, so it is reproducible.
 */
import type { Rng } from '../load/rng';
import { EmpiricalDistribution, validateQuantiles, type Quantiles } from './distribution';

export interface CostModel {
  fixed_us?: number;
  per_item_us?: number;
  /** batch size -> µs; when present it wins over fixed/per_item */
  table?: Record<string, number>;
  /** 0.1 = +-10% uniform noise (a hand-set spread; `spread` is the measured one and wins) */
  jitter?: number;
  /**
   * Measured spread of a batch's time around the table's median at its size: quantiles of (time / median),
   * from a calibration's runs (see fitBatchRecords). Each batch draws its factor from it.
   */
  spread?: Quantiles;
  /**
   * idle µs before a batch -> extra µs (a calibration's idle_penalty_us): an instance that sat idle wakes
   * and refills its caches first. Linear between entries, flat beyond the last.
   */
  idle_penalty_us?: Record<string, number>;
  /**
   * Measured extra µs of a batch after idle when the server's main thread spun meanwhile (quantiles; a
   * calibration's spin_wake_us, over the median after a sleeping main thread: negative at the median,
   * milliseconds in the tail): the woken instance waiting for a core the spinning main thread holds.
   * Drawn for a batch handed to an instance idle for at least SPIN_WAKE_MIN_IDLE_US while the modelled
   * RealClock turns its loop (see SimExecutor).
   */
  spin_wake_us?: Quantiles;
  /**
   * instance_group kind the figures are for. KIND_CPU instances share the host's cores (see CpuHost):
   * a batch started while more CPU instances are busy than there are cores runs slower. Absent: the
   * instance has a device of its own (a GPU, or a figure that already includes contention).
   */
  kind?: string;
}

export const DEFAULT_COST: CostModel = { fixed_us: 2000, per_item_us: 250 };

export class CostModelError extends Error {
  override name = 'CostModelError';
}

export function validateCost(input: unknown, what = 'cost model'): CostModel {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new CostModelError(`${what} must be a JSON object`);
  const o = input as Record<string, unknown>;
  const problems: string[] = [];
  for (const k of Object.keys(o)) if (!['fixed_us', 'per_item_us', 'table', 'jitter', 'spread', 'idle_penalty_us', 'spin_wake_us', 'kind'].includes(k)) problems.push(`${k}: unknown field (known: fixed_us, per_item_us, table, jitter, spread, idle_penalty_us, spin_wake_us, kind)`);
  for (const k of ['fixed_us', 'per_item_us'] as const) {
    if (o[k] !== undefined && !(typeof o[k] === 'number' && Number.isFinite(o[k]) && (o[k] as number) >= 0)) problems.push(`${k}: must be a number >= 0`);
  }
  if (o.jitter !== undefined && !(typeof o.jitter === 'number' && o.jitter >= 0 && o.jitter < 1)) problems.push('jitter: must be a number in [0, 1)');
  if (o.spread !== undefined) problems.push(...validateQuantiles(o.spread, 'spread'));
  if (o.idle_penalty_us !== undefined) problems.push(...validateIdlePenalty(o.idle_penalty_us));
  if (o.spin_wake_us !== undefined) problems.push(...validateQuantiles(o.spin_wake_us, 'spin_wake_us'));
  if (o.kind !== undefined && typeof o.kind !== 'string') problems.push('kind: must be a string such as KIND_CPU');
  if (o.table !== undefined) {
    const t = o.table as Record<string, unknown>;
    if (typeof t !== 'object' || t === null || Object.keys(t).length === 0) problems.push('table: must be a non-empty object {batch size: µs}');
    else for (const [k, v] of Object.entries(t)) {
      if (!/^[1-9]\d*$/.test(k)) problems.push(`table.${k}: keys must be batch sizes >= 1`);
      if (!(typeof v === 'number' && Number.isFinite(v) && v >= 0)) problems.push(`table.${k}: must be a number of µs >= 0`);
    }
  }
  if (o.table === undefined && o.fixed_us === undefined && o.per_item_us === undefined) problems.push('give fixed_us/per_item_us or a table');
  if (problems.length) throw new CostModelError(`invalid ${what}: ${problems.join('; ')}`);
  return o as CostModel;
}

/**
 * Deterministic part of the latency of a batch of `size` samples, µs. Outside a table's sizes the cost
 * continues from the nearest entry with `per_item_us` when given (a calibration's fitted slope: a live
 * table only has the sizes the traffic formed), else with the slope of the table's end segment.
 */
export function baseLatencyUs(cost: CostModel, size: number): number {
  if (cost.table) {
    const pts = Object.entries(cost.table).map(([k, v]) => [Number(k), v] as const).sort((a, b) => a[0] - b[0]);
    const slope = cost.per_item_us;
    if (slope !== undefined) {
      const [lo, hi] = [pts[0], pts[pts.length - 1]];
      if (size >= hi[0]) return hi[1] + slope * (size - hi[0]);
      if (size <= lo[0]) return Math.max(cost.fixed_us ?? 0, lo[1] - slope * (lo[0] - size));
    }
    if (pts.length === 1) return (pts[0][1] * size) / pts[0][0];
    let i = pts.findIndex((p) => p[0] >= size);
    if (i === 0) i = 1;
    if (i < 0) i = pts.length - 1;
    const [x0, y0] = pts[i - 1];
    const [x1, y1] = pts[i];
    return Math.max(0, y0 + ((y1 - y0) * (size - x0)) / (x1 - x0));
  }
  return (cost.fixed_us ?? 0) + (cost.per_item_us ?? 0) * size;
}

const spreads = new WeakMap<Quantiles, EmpiricalDistribution>();
const distributionOf = (q: Quantiles): EmpiricalDistribution => {
  let d = spreads.get(q);
  if (!d) spreads.set(q, (d = new EmpiricalDistribution(q)));
  return d;
};

/** The shortest idle the spin-wake measurement covers (its gaps are 0.3-3 ms): a batch after less pays none. */
export const SPIN_WAKE_MIN_IDLE_US = 300;

/**
 * Extra µs of a batch after idle while the main thread spins: a draw from spin_wake_us. It can be below 0:
 * a spinning main thread keeps the host's cores awake, so the usual hand-off is a little quicker than after
 * a sleep (the median here is 30-90 µs below it), while a few wait a millisecond or more for a core.
 */
export function spinWakeUs(cost: CostModel, rng: Rng): number {
  return cost.spin_wake_us ? Math.round(distributionOf(cost.spin_wake_us).sample(rng)) : 0;
}

/** `slowdown` >= 1: how much slower than alone the instance runs (CPU contention, see CpuHost). */
export function latencyUs(cost: CostModel, size: number, rng: Rng, slowdown = 1): number {
  const base = baseLatencyUs(cost, size) * slowdown;
  let v = base;
  if (cost.spread) v = base * distributionOf(cost.spread).sample(rng);
  else if ((cost.jitter ?? 0) > 0) v = base * (1 + cost.jitter! * (2 * rng.next() - 1));
  return Math.max(1, Math.round(v));
}

export function validateIdlePenalty(t: unknown, what = 'idle_penalty_us'): string[] {
  if (typeof t !== 'object' || t === null || Array.isArray(t) || Object.keys(t).length === 0) return [`${what}: must be a non-empty object {idle µs: extra µs}`];
  return Object.entries(t as Record<string, unknown>).flatMap(([k, v]) =>
    !(Number(k) >= 0) ? [`${what}.${k}: keys are idle µs >= 0`] : !(typeof v === 'number' && v >= 0 && Number.isFinite(v)) ? [`${what}.${k}: must be a number of µs >= 0`] : []);
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
