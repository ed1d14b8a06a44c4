/**
 * The real server's host, for the simulator-fidelity bench: what core's simulation leaves out (its timers
 * fire on time, the server's own threads take no CPU), plugged in through the simulation's one seam
 * (`SimulationOptions.hostModel`):
 * - RealClock's timers (real-clock-model.ts): whole-millisecond sleeps with the measured lateness, turn by
 *   turn checks below a millisecond, during which the main thread spins;
 * - main-thread stalls (stalls.ts) and the server's own collections (gc-pauses.ts): nothing the main
 *   thread does happens during one;
 * - the main thread's CPU load (its work per request, a whole core while it spins) beside CPU instances;
 * - the spin wake-up of an instance woken while the main thread spins, and the main thread's own wake-up
 *   for an answer (HostSimExecutor).
 */
import type { Clock, VirtualClock } from '@inferscope/core/clock';
import { Rng } from '@inferscope/core/load';
import { baseLatencyUs, idlePenaltyUs, SimExecutor, distributionOf, type CostModel, type CpuHost, type SimHostModel, type StallProfile, type StartingBatch } from '@inferscope/core/sim';
import { ON_TIME, RealClockModel } from './real-clock-model';
import { combinedStalls, StallSchedule } from './stalls';
import { GcPauses } from './gc-pauses';
import { MainThreadLoad } from './main-thread-load';
import type { GcProfile, TimerProfile, WakeCost } from './schemas';

/** The shortest idle the spin-wake measurement covers (its gaps are 0.3-3 ms): a batch after less pays none. */
export const SPIN_WAKE_MIN_IDLE_US = 300;

/**
 * Extra µs of a batch after idle while the main thread spins: a draw from spin_wake_us. It can be below 0:
 * a spinning main thread keeps the host's cores awake, so the usual hand-off is a little quicker than after
 * a sleep, while a few wait a millisecond or more for a core.
 */
export function spinWakeUs(wake: WakeCost, rng: Rng): number {
  return wake.spin_wake_us ? Math.round(distributionOf(wake.spin_wake_us).sample(rng)) : 0;
}

export interface HostModelOptions {
  /** RealClock's timer lateness; absent (and no stalls or gc): timers on time and no spinning modelled */
  timers?: TimerProfile;
  /** the host's main-thread stalls */
  stalls?: StallProfile;
  /** the server's own garbage collections */
  gc?: GcProfile;
  /** the server's main-thread work per request, µs (default 0) */
  mainThreadUsPerRequest?: number;
  /** while RealClock turns its loop the main thread holds a whole core the CPU instances do not get (default true) */
  spinTakesCore?: boolean;
  /** per model: its spin wake-up and answer wake-up */
  wake?: Record<string, WakeCost>;
}

/** Hooks a HostSimExecutor reads the modelled main thread through. */
export interface MainThreadHooks {
  /** whether the main thread spins now (RealClockModel.spinning; absent: not modelled) */
  spinning?: () => boolean;
  /** the main thread took an answer in at t (RealClockModel.activity: its loop ran an iteration) */
  activity?: (tUs: number) => void;
  /** when the main thread notices a batch that ended at t (stalls defer it) */
  noticeAt?: (tUs: number) => number;
  /** cores' worth of the main thread's request work at t */
  load?: (tUs: number) => number;
  spinTakesCore?: boolean;
  wake?: WakeCost;
}

/** The simulation's host model: pass `hostModel(o)` as SimulationOptions.hostModel. */
export function hostModel(o: HostModelOptions): SimHostModel {
  return (clock: VirtualClock, seed: number) => {
    const hostStalls = o.stalls ? new StallSchedule(o.stalls, new Rng(seed ^ 0x1b873593)) : undefined;
    const gc = o.gc ? new GcPauses(o.gc, new Rng(seed ^ 0x68e31da4)) : undefined;
    const parts = [...(hostStalls ? [hostStalls] : []), ...(gc ? [gc] : [])];
    const stalls = parts.length ? combinedStalls(parts) : undefined;
    const rc = o.timers || stalls ? new RealClockModel(clock, o.timers ?? ON_TIME, new Rng(seed ^ 0x5bd1e995), stalls) : undefined;
    const main = new MainThreadLoad(o.mainThreadUsPerRequest ?? 0);
    const hooks: MainThreadHooks = {
      ...(rc ? { spinning: () => rc.spinning(), activity: (t: number) => rc.activity(t) } : {}),
      ...(stalls ? { noticeAt: (t: number) => stalls.releaseAt(t, clock.now()) } : {}),
      load: (t) => main.at(t),
      spinTakesCore: o.spinTakesCore,
    };
    const timers: Clock = rc ?? clock;
    return {
      timers,
      request: (t) => {
        main.request(t);
        gc?.request(t);
      },
      executor: (model, cost, rng, eo) => new HostSimExecutor(clock, cost, rng, eo, { ...hooks, wake: o.wake?.[model] }),
    };
  };
}

/** SimExecutor with the modelled main thread: spinning, stalls, its load and its wake-ups. */
export class HostSimExecutor<P = unknown> extends SimExecutor<P> {
  /** per batch: µs its answer waits for a sleeping main thread's wake-up */
  private readonly wakeOf = new WeakMap<StartingBatch<P>, number>();

  constructor(clock: Clock, cost: CostModel, rng: Rng, o: { host?: CpuHost; prefetch?: number }, private readonly main: MainThreadHooks) {
    super(clock, cost, rng, o);
  }

  protected override startBatch(b: StartingBatch<P>): void {
    const spinning = this.main.spinning;
    const share = (spins: boolean) => (spins && (this.main.spinTakesCore ?? true) ? 1 : Math.min(1, this.main.load?.(this.clock.now()) ?? 0));
    if (spinning === undefined) return this.compute(b, share(false));
    // Whether the main thread spins is known once the work of this instant is done (the load driver arms
    // its next send after the request that started this batch), so it is looked at in a timer of the same
    // instant, after them.
    this.clock.setTimer(this.clock.now(), () => {
      const spins = spinning();
      this.spinsAt.set(b, spins);
      this.compute(b, share(spins));
    });
  }

  private readonly spinsAt = new WeakMap<StartingBatch<P>, boolean>();

  protected override busyUs(b: StartingBatch<P>, slowdown: number): number {
    const took = this.tookUs(b, slowdown);
    const spinning = this.main.spinning;
    if (spinning === undefined) return took;
    const wakeCost = this.main.wake ?? {};
    const spinWake = wakeCost.spin_wake_us !== undefined && b.idleUs >= SPIN_WAKE_MIN_IDLE_US;
    // The table's times were measured with the main thread asleep while it waited (answer_wake_us of them is
    // its wake-up): the instance itself is done that much sooner, and a main thread that is turning its
    // loop then sees the answer at once; one that sleeps sees it after its wake-up. A held batch's time
    // (the held table) has no hand-off in it: it is the instance's own, and only the answer waits.
    const wake = !spinWake && wakeCost.answer_wake_us ? Math.min(wakeCost.answer_wake_us, took - 1) : 0;
    this.wakeOf.set(b, wake);
    const early = b.held && this.cost.held_table ? 0 : wake;
    // A woken instance waits for a core while the main thread spins. The spin-wake draw is a whole batch's
    // scatter around the median after a sleeping main thread (its own noise included), so it stands in for
    // the spread: the batch costs its median, the cost after idle and the draw. Not the host's slowdown on
    // top: the draw is measured on the server's own woken batches (wake-probe.ts), contention included.
    const median = Math.round(baseLatencyUs(this.cost, b.size) + idlePenaltyUs(this.cost, b.idleUs));
    return spinWake && this.spinsAt.get(b) ? median + spinWakeUs(wakeCost, this.rng) : took - early;
  }

  protected override answer(b: StartingBatch<P>, deliver: () => void): void {
    const answer = () => {
      this.main.activity?.(this.clock.now());
      deliver();
    };
    const notice = () => {
      const seen = this.main.noticeAt ? this.main.noticeAt(this.clock.now()) : this.clock.now();
      if (seen > this.clock.now()) this.clock.setTimer(seen, answer);
      else answer();
    };
    const wake = this.wakeOf.get(b) ?? 0;
    if (wake > 0 && !this.main.spinning!()) this.clock.setTimer(this.clock.now() + wake, notice);
    else notice();
  }
}
