/**
 * "Now" on the scheduler clock as the renderer sees it. Live: the latest frame's time plus the local time
 * elapsed since it arrived (capped, so a stalled stream freezes instead of drifting). Teaching: the
 * simulator's virtual time. Views never read performance.now() for data time themselves.
 */
import { exposeForTests } from '../platform/test-hooks';
export interface DataClock {
  nowUs(): number;
  /** how much data time an animated move takes (live: 200 ms; teaching: scaled with the speed) */
  animUs?(): number;
  /**
   * The charts' window in data µs when the clock knows what there is to show (teaching: the whole run
   * simulated so far, so a 0.4 s simulation fills the chart instead of its last 10%); live: the URL's window.
   */
  spanUs?(): number;
}

let current: DataClock = { nowUs: () => 0 };

export function setDataClock(c: DataClock): void {
  current = c;
}

export function dataNowUs(): number {
  return current.nowUs();
}

export function animUs(): number {
  return current.animUs?.() ?? 200_000;
}

/** Extrapolates between frames: frames arrive every ~40 ms, animation runs at 60 fps. */
export class FrameClock implements DataClock {
  private lastT = 0;
  private lastLocal = 0;
  constructor(private readonly maxExtrapolateUs = 500_000) {}
  onFrame(t: number, localMs: number): void {
    if (t >= this.lastT) {
      this.lastT = t;
      this.lastLocal = localMs;
    }
  }
  /** A new server process: its clock starts again, so earlier (larger) times must not hold "now" back. */
  restart(): void {
    this.lastT = 0;
    this.lastLocal = 0;
  }
  nowUs(localMs = performance.now()): number {
    return this.lastT + Math.min(this.maxExtrapolateUs, Math.max(0, (localMs - this.lastLocal) * 1000));
  }
}

/** The charts' time window in data µs: the clock's span (teaching), else the URL's window in seconds. */
export function windowUs(windowS: number): number {
  return current.spanUs?.() ?? windowS * 1_000_000;
}

declare global {
  interface Window {
    /** the renderer's data time, for tests (test-hooks.ts) */
    __inferscopeDataNowUs?: () => number;
  }
}
exposeForTests('__inferscopeDataNowUs', () => current.nowUs());
