/**
 * What the tuner measured at the setting it holds: the answers of the last few windows pooled into one
 * histogram. One window's p99 at 300/s is its 3rd slowest answer and swings several-fold from window to
 * window (the host's interruptions come in clusters); five windows pooled are 1500 answers, whose p99 (the
 * 15th slowest) is what a user's dashboard shows over the same seconds. The pool holds one setting at one
 * rate: a change of setting or a jump of the rate starts it again.
 */
import { LogHistogram } from '../stats/histogram';
import type { AutotuneWindow } from './window';

/** windows pooled at most (the dwell's length in windows) */
export const POOL_WINDOWS = 5;
/** fewer answers than this: the pool's p99 is not a measurement */
export const MIN_SAMPLES = 30;
/** a window's rate this far from the pool's starts a new pool (the traffic changed, not the noise) */
export const RATE_BAND = 0.25;

export interface Pool {
  windows: { arrivals: number; duration_us: number; completed: number; p99_us: number; over: number; latency?: LogHistogram }[];
}

export const emptyPool = (): Pool => ({ windows: [] });

export function poolRate(p: Pool): number {
  const us = p.windows.reduce((s, w) => s + w.duration_us, 0);
  return us > 0 ? (p.windows.reduce((s, w) => s + w.arrivals, 0) * 1e6) / us : 0;
}

/** the rates differ by more than the band (either way) */
export function rateMoved(a: number, b: number): boolean {
  const hi = Math.max(a, b);
  const lo = Math.min(a, b);
  return hi > 0 && (lo <= 0 || hi / lo > 1 + RATE_BAND);
}

/** The pool with this window added: a new pool when the rate jumped, the oldest window dropped past POOL_WINDOWS. */
export function addWindow(p: Pool, w: AutotuneWindow): Pool {
  const rate = (w.arrivals * 1e6) / w.duration_us;
  const fresh = p.windows.length > 0 && rateMoved(rate, poolRate(p));
  const entry = { arrivals: w.arrivals, duration_us: w.duration_us, completed: w.completed, p99_us: w.p99_us, over: w.over_target, ...(w.latency ? { latency: w.latency } : {}) };
  return { windows: [...(fresh ? [] : p.windows), entry].slice(-POOL_WINDOWS) };
}

export interface Measured {
  answered: number;
  /** p99 of the pooled answers (undefined under MIN_SAMPLES) */
  p99_us?: number;
  /** share of the pooled answers slower than the target */
  miss_share: number;
}

export function measured(p: Pool): Measured {
  const answered = p.windows.reduce((s, w) => s + w.completed, 0);
  const over = p.windows.reduce((s, w) => s + w.over, 0);
  const miss_share = answered > 0 ? over / answered : 0;
  if (answered < MIN_SAMPLES) return { answered, miss_share };
  if (p.windows.every((w) => w.latency)) {
    const h = new LogHistogram();
    for (const w of p.windows) h.merge(w.latency!);
    return { answered, miss_share, p99_us: h.percentile(0.99) };
  }
  // windows without their answers (a recorded trace of p99s): their p99s weighted by answers
  return { answered, miss_share, p99_us: p.windows.reduce((s, w) => s + w.p99_us * w.completed, 0) / answered };
}
