import { MinHeap } from '../util/min-heap';
import type { Clock, TimerHandle } from './clock';

interface VirtualTimer {
  at: number;
  /** insertion order: timers due at the same instant fire in the order they were set */
  seq: number;
  fn: () => void;
  cancelled: boolean;
}

/**
 * A clock that only moves when told to. Timers fire synchronously, in (time, insertion) order, while
 * advancing; a timer set by a firing timer for a time inside the advanced range fires in the same advance.
 * Used by every scheduler test (no sleeps) and by the simulator. Times may be fractional (as RealClock's
 * are): a timer fires at exactly the time it was set for, so code that waits must test a deadline with the
 * same arithmetic it armed the timer with (`now >= start + delay`, never `now - start >= delay`, which
 * floating point can leave false at that very instant and so re-arm the same timer forever).
 */
export class VirtualClock implements Clock {
  private t: number;
  private seq = 0;
  // Earliest first; equal times fire in the order they were set.
  private readonly heap = new MinHeap<VirtualTimer>((a, b) => a.at < b.at || (a.at === b.at && a.seq < b.seq));

  constructor(startUs = 0) {
    this.t = startUs;
  }

  now(): number {
    return this.t;
  }

  setTimer(atUs: number, fn: () => void): TimerHandle {
    if (!Number.isFinite(atUs)) throw new RangeError(`timer time must be finite, got ${atUs}`);
    const timer: VirtualTimer = { at: Math.max(atUs, this.t), seq: this.seq++, fn, cancelled: false };
    this.heap.push(timer);
    return timer;
  }

  clearTimer(handle: TimerHandle): void {
    (handle as VirtualTimer).cancelled = true;
  }

  /** number of live timers */
  get pending(): number {
    let n = 0;
    for (const t of this.heap.values()) if (!t.cancelled) n++;
    return n;
  }

  /** time of the next live timer, or undefined */
  nextTimerAt(): number | undefined {
    this.dropCancelled();
    return this.heap.peek()?.at;
  }

  advance(us: number): void {
    if (us < 0) throw new RangeError('cannot move a clock backwards');
    this.advanceTo(this.t + us);
  }

  advanceTo(tUs: number): void {
    if (tUs < this.t) throw new RangeError(`cannot move the clock back from ${this.t} to ${tUs}`);
    while (this.fireNext(tUs)) {
      /* keep firing */
    }
    this.t = tUs;
  }

  /** Fire the next timer (moving time to it). Returns false when none is left. */
  step(): boolean {
    return this.fireNext(Infinity);
  }

  /** Fire timers until none remain; `maxTimers` guards against a timer that always re-arms itself. */
  runUntilIdle(maxTimers = 10_000_000): number {
    let fired = 0;
    while (this.fireNext(Infinity)) {
      if (++fired >= maxTimers) throw new Error(`runUntilIdle: still busy after ${maxTimers} timers`);
    }
    return fired;
  }

  private fireNext(limit: number): boolean {
    this.dropCancelled();
    const top = this.heap.peek();
    if (top === undefined || top.at > limit) return false;
    this.heap.pop();
    this.t = top.at;
    top.cancelled = true;
    top.fn();
    return true;
  }

  private dropCancelled(): void {
    while (this.heap.peek()?.cancelled) this.heap.pop();
  }
}
