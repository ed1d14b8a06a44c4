/**
 * The cost model from batch records: each record one batch's size and how long it took. `inferscope
 * calibrate` feeds it the batches it timed one after the other; a live server feeds it its own
 * batch.completed events (compute_us, size). One fit for both, so a live calibration and a shipped one
 * mean the same thing:
 * - table_us: the median time at every size with enough batches (the simulator interpolates between them);
 * - fit: the least-squares line through that table (fixed + per item), which a teacher explains and the
 *   simulator uses beyond the table's sizes;
 * - spread: how times scatter around their size's median (quantiles of time / median, pooled over sizes),
 *   which the simulator draws each batch's time from, so tails come from measurement;
 * - interruptions: the batches that took far longer than their size's median (INTERRUPTED_IQRS), left out of
 *   the spread: how often they start per second of batch time and what they added, µs. A batch's thread
 *   descheduled for a millisecond adds a millisecond whatever the batch's size; as a factor of the median
 *   it would be 8x for a 130 µs batch and 1.5x for a 2 ms one, and pooled over sizes the small sizes'
 *   factors (they are timed most often) would stretch every large batch of the simulation by them.
 */
import { fitLinear } from './calibration-cost';
import { quantilesOf, type Quantiles } from './distribution';
import type { StallProfile } from './schemas';
import { percentile } from '../util/percentile';

/**
 * A turn of an idle event loop takes ~1 µs and a setTimeout wake-up ~130 µs beyond its whole milliseconds:
 * a gap longer than this is not timer behaviour but the thread not running (an interruption, a stall).
 */
export const STALL_THRESHOLD_US = 200;

/**
 * A batch is interrupted when it took longer than its size's upper quartile plus this many interquartile
 * ranges (Tukey's far-out fence: beyond how the work itself varies at that size) AND more than
 * STALL_THRESHOLD_US above its size's median (beyond a thread's wake-up).
 */
export const INTERRUPTED_IQRS = 3;

export interface BatchRecord {
  /** samples in the batch */
  size: number;
  /** how long it took, µs */
  us: number;
}

export interface BatchFit {
  table_us: Record<string, number>;
  fit: { fixed_us: number; per_item_us: number };
  spread: Quantiles;
  /** absent when no batch was interrupted */
  interruptions?: StallProfile;
  /** size -> batches behind its table entry */
  counts: Record<string, number>;
  /** records used (sizes with fewer than minPerSize batches are left out) */
  batches: number;
}

export class FitError extends Error {
  override name = 'FitError';
}

const medianOf = (sorted: Float64Array) => {
  const n = sorted.length;
  return n % 2 ? sorted[(n - 1) / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
};

export interface FitOptions {
  /** a size needs at least this many batches for a table entry (default 5) */
  minPerSize?: number;
  /**
   * ...and at least this share of all batches (default 0). For live traffic: sizes the traffic rarely
   * forms are formed under unusual conditions (a burst after a stall) and their times carry the stall;
   * the fitted slope covers them instead.
   */
  minShare?: number;
  /** weight the line by the batches behind each size (live traffic: well-measured sizes count more) */
  weighted?: boolean;
}

/** Fits batch records; throws FitError when no size has enough valid records. */
export function fitBatchRecords(records: Iterable<BatchRecord>, options: number | FitOptions = {}): BatchFit {
  const o = typeof options === 'number' ? { minPerSize: options } : options;
  const minPerSize = o.minPerSize ?? 5;
  const bySize = new Map<number, number[]>();
  for (const r of records) {
    if (!(Number.isInteger(r.size) && r.size >= 1 && Number.isFinite(r.us) && r.us > 0)) continue;
    const xs = bySize.get(r.size);
    if (xs) xs.push(r.us);
    else bySize.set(r.size, [r.us]);
  }
  const table_us: Record<string, number> = {};
  const counts: Record<string, number> = {};
  const ratios: number[] = [];
  const extra: number[] = [];
  let spanUs = 0;
  let total = 0;
  for (const xs of bySize.values()) total += xs.length;
  const least = Math.max(minPerSize, (o.minShare ?? 0) * total);
  for (const [size, xs] of [...bySize.entries()].sort((a, b) => a[0] - b[0])) {
    if (xs.length < least) continue;
    const sorted = Float64Array.from(xs).sort();
    const med = medianOf(sorted);
    const q = (p: number) => percentile(sorted, p);
    const fence = Math.max(q(0.75) + INTERRUPTED_IQRS * (q(0.75) - q(0.25)), med + STALL_THRESHOLD_US);
    table_us[String(size)] = Math.round(med * 10) / 10;
    counts[String(size)] = xs.length;
    for (const x of xs) {
      spanUs += x;
      if (x > fence) extra.push(x - med);
      else ratios.push(x / med);
    }
  }
  if (ratios.length + extra.length === 0) throw new FitError(`no batch size has ${Math.ceil(least)} or more batches to fit (sizes seen: ${[...bySize.keys()].join(', ') || 'none'})`);
  const interruptions = extra.length ? { interruptions: { rate_per_s: Math.round((extra.length / spanUs) * 1e6 * 1000) / 1000, duration_us: quantilesOf(extra, 0) } } : {};
  return { table_us, fit: fitLinear(table_us, o.weighted ? counts : undefined), spread: quantilesOf(ratios), ...interruptions, counts, batches: ratios.length + extra.length };
}
