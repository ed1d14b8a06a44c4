/**
 * The real server's timers, on the simulator's virtual clock. The server's RealClock (packages/core/src/clock/real-clock.ts)
 * has two documented behaviours that move when a timer really fires, and so when a delay batch leaves
 * and when the load generator's next request goes out:
 * - a wait of 1 ms or more sleeps in setTimeout, rounded UP to whole milliseconds: a 1.5 ms wait wakes
 *   after ~2 ms; then the event loop's own wake-up latency comes on top;
 * - a shorter wait is re-checked once per event-loop turn: it fires at the first turn after its time.
 * The coarse timer's wake-up latency is a sleeping loop's: libuv runs every expired setTimeout in the
 * first loop iteration after it expires, so one that expires while the loop turns (a turn-checked timer
 * pending) or before anything else wakes it (another timer, a worker's answer: `activity`) fires then,
 * on time; only one the loop sleeps through waits for the measured wake-up.
 * A TimerProfile holds the two measured residuals (see `measureTimerProfile` in the server's calibration
 * code): how late a coarse timer fires beyond its rounded-up sleep, and how late a turn-checked one fires.
 * This clock applies them, drawing from the profile with a seeded Rng, so the simulation stays reproducible,
 * and defers a timer that falls in a main-thread stall (stalls.ts) to the stall's end, looked up again when
 * it fires: a stall can begin after the timer was armed (a garbage collection a later request started).
 */
import type { Clock, TimerHandle, VirtualClock } from '@inferscope/core/clock';
import type { Rng } from '@inferscope/core/load';
import { EmpiricalDistribution, schemaProblems } from '@inferscope/core/sim';
import { TimerProfileSchema, type TimerProfile } from './schemas';
import type { MainThreadStalls } from './stalls';

/** Timers that fire exactly on time: what a stall model alone runs on. */
export const ON_TIME: TimerProfile = { coarse_late_us: { '0': -1000, '1': -1000 }, fine_late_us: { '0': 0, '1': 0 } };

/** Where RealClock switches from per-turn checks to setTimeout (its COARSE_MARGIN_US). */
export const REAL_CLOCK_COARSE_US = 1000;

export type { TimerProfile };

export function validateTimerProfile(t: unknown, what = 'timer'): string[] {
  return schemaProblems(TimerProfileSchema, t, what);
}

/** When a RealClock timer armed at `nowUs` for `atUs` fires, given the two residual draws. */
export function realClockFireUs(nowUs: number, atUs: number, coarseLateUs: number, fineLateUs: number): number {
  const remaining = atUs - nowUs;
  const fine = Math.max(atUs, nowUs) + Math.max(0, fineLateUs);
  if (remaining < REAL_CLOCK_COARSE_US) return fine;
  // setTimeout(ceil(ms)); a wake-up before the time is finished turn by turn (never early)
  const woke = nowUs + Math.ceil(remaining / 1000) * 1000 + coarseLateUs;
  return Math.max(fine, woke);
}

/** a timer that may be moved to the end of a stall that began after it was armed */
class DeferredTimer {
  sleeping?: SleepingTimer;
  constructor(public inner: TimerHandle) {}
}

/** a setTimeout-backed timer: when its sleep expires, and how it fires early if the loop is awake then */
interface SleepingTimer {
  expiresUs: number;
  firesUs: number;
  /** fire at `t` (>= expiresUs): the loop ran an iteration then */
  wake(t: number): void;
  /** the look at expiry whether the loop turns */
  check?: TimerHandle;
}

export class RealClockModel implements Clock {
  private readonly coarse: EmpiricalDistribution;
  private readonly fine: EmpiricalDistribution;
  /** turn-checked timers pending: while there is one, the real main thread turns its loop (spins) */
  private readonly turning = new Set<DeferredTimer>();
  /** coarse timers not fired yet (the loop may sleep through their expiry) */
  private readonly sleeping = new Set<SleepingTimer>();

  constructor(
    private readonly inner: VirtualClock,
    profile: TimerProfile,
    private readonly rng: Rng,
    /** main-thread stalls: a timer due inside one fires at its end */
    private readonly stalls?: MainThreadStalls,
  ) {
    this.coarse = new EmpiricalDistribution(profile.coarse_late_us);
    this.fine = new EmpiricalDistribution(profile.fine_late_us);
  }

  now(): number {
    return this.inner.now();
  }

  /**
   * Whether the real main thread would be spinning now: RealClock checks a wait shorter than a millisecond
   * on every event-loop turn (setImmediate), so while one is pending the thread never sleeps.
   */
  spinning(): boolean {
    return this.turning.size > 0;
  }

  /**
   * The main thread ran something at `t` (a worker's answer taken in): setTimeout timers that expired by
   * then fire in that iteration, not after a sleeping loop's wake-up.
   */
  activity(t: number): void {
    for (const s of this.sleeping) if (s.expiresUs <= t && t < s.firesUs) s.wake(t);
  }

  /** setTimeout timers armed and not fired yet (tests) */
  get sleepingCount(): number {
    return this.sleeping.size;
  }

  setTimer(atUs: number, fn: () => void): TimerHandle {
    const now = this.inner.now();
    const isCoarse = atUs - now >= REAL_CLOCK_COARSE_US;
    const coarse = isCoarse ? this.coarse.sample(this.rng) : 0;
    const fineLate = this.fine.sample(this.rng);
    const fire = realClockFireUs(now, atUs, coarse, fineLate);
    const stalls = this.stalls;
    const timer = new DeferredTimer(0);
    if (!isCoarse) this.turning.add(timer);
    const run = () => {
      const t = this.inner.now();
      this.turning.delete(timer);
      if (timer.sleeping) this.sleeping.delete(timer.sleeping);
      fn();
      this.activity(t);
    };
    const arm = (at: number) => {
      timer.inner = this.inner.setTimer(at, () => {
        const t = this.inner.now();
        const later = stalls ? stalls.releaseAt(t, t) : t;
        if (later > t) return arm(later);
        run();
      });
    };
    arm(stalls ? stalls.releaseAt(fire, now) : fire);
    const expires = now + Math.ceil((atUs - now) / 1000) * 1000;
    if (isCoarse && fire > expires) {
      const s: SleepingTimer = {
        expiresUs: expires,
        firesUs: fire,
        wake: (t) => {
          // the loop is up: no longer sleeping through it, it fires in this iteration's timers
          this.sleeping.delete(s);
          this.inner.clearTimer(timer.inner);
          s.firesUs = Math.max(t, atUs) + Math.max(0, fineLate);
          arm(s.firesUs);
        },
      };
      timer.sleeping = s;
      this.sleeping.add(s);
      // expiring while the loop turns: it fires at once
      s.check = this.inner.setTimer(expires, () => {
        if (this.sleeping.has(s) && this.spinning()) s.wake(this.inner.now());
      });
    }
    return timer;
  }

  clearTimer(handle: TimerHandle): void {
    if (!(handle instanceof DeferredTimer)) return this.inner.clearTimer(handle);
    this.turning.delete(handle);
    if (handle.sleeping) {
      this.sleeping.delete(handle.sleeping);
      if (handle.sleeping.check) this.inner.clearTimer(handle.sleeping.check);
    }
    this.inner.clearTimer(handle.inner);
  }
}
