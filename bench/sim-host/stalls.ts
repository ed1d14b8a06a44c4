/**
 * Stalls of the server's main thread: stretches when its event loop runs nothing at all (the process is
 * descheduled by other tenants of a shared VM, a garbage collection, a page fault). During one, nothing
 * the main thread does happens: no request is taken in, no timer fires, no finished batch is noticed;
 * at its end all of it happens at once, which is where the real server's latency tail and its bursts of
 * arrivals (bigger batches) come from. Worker threads keep computing: an instance with a batch held
 * behind its running one goes straight on to it.
 *
 * A StallProfile is measured by the server's stall probe (an idle event loop turning as fast as it can;
 * a turn that takes longer than STALL_THRESHOLD_US is a stall): how often stalls start and how long they
 * last. StallSchedule draws a stall sequence from it with a seeded Rng (Poisson starts, durations from the
 * measured quantiles), lazily and in time order, so the simulation stays reproducible.
 */
import type { Rng } from '@inferscope/core/load';
import { EmpiricalDistribution, schemaProblems, STALL_THRESHOLD_US, StallProfileSchema, type StallProfile } from '@inferscope/core/sim';

/** core's threshold (fit-batches.ts): a gap longer than it is the thread not running, not timer behaviour */
export { STALL_THRESHOLD_US };

export type { StallProfile };

export function validateStallProfile(s: unknown, what = 'stalls'): string[] {
  return schemaProblems(StallProfileSchema, s, what);
}

export class StallSchedule {
  private readonly duration: EmpiricalDistribution;
  /** stalls drawn so far, in time order: [start, end) pairs; those that ended before `now` are dropped */
  private readonly starts: number[] = [];
  private readonly ends: number[] = [];
  private head = 0;
  private lastEnd = 0;

  constructor(
    private readonly profile: StallProfile,
    private readonly rng: Rng,
  ) {
    this.duration = new EmpiricalDistribution(profile.duration_us);
  }

  /**
   * When something due at `tUs` on the main thread really happens: at once, or at the end of the stall it
   * falls in. `nowUs` (<= tUs, never decreasing): the simulation's present; stalls over by then are dropped.
   */
  releaseAt(tUs: number, nowUs = tUs): number {
    if (this.profile.rate_per_s <= 0) return tUs;
    while (this.lastEnd <= tUs) this.draw();
    while (this.head < this.ends.length && this.ends[this.head] <= nowUs) this.head++;
    if (this.head > 1024) {
      this.starts.splice(0, this.head);
      this.ends.splice(0, this.head);
      this.head = 0;
    }
    for (let i = this.head; i < this.starts.length && this.starts[i] <= tUs; i++) if (tUs < this.ends[i]) return this.ends[i];
    return tUs;
  }

  private draw(): void {
    const gap = (-Math.log(1 - this.rng.next()) / this.profile.rate_per_s) * 1e6;
    const start = this.lastEnd + gap;
    const end = start + Math.max(0, this.duration.sample(this.rng));
    this.starts.push(start);
    this.ends.push(end);
    this.lastEnd = end;
  }
}

/** Anything that stops the main thread for a while: when something due at `tUs` really happens. */
export interface MainThreadStalls {
  releaseAt(tUs: number, nowUs: number): number;
}

/**
 * Several sources of main-thread stalls as one (the host's, the server's own collections): the end of one
 * may fall in another, so the release is looked up until it stays put.
 */
export function combinedStalls(parts: readonly MainThreadStalls[]): MainThreadStalls {
  return {
    releaseAt(tUs, nowUs) {
      for (let t = tUs; ;) {
        let next = t;
        for (const p of parts) next = p.releaseAt(next, nowUs);
        if (next === t) return t;
        t = next;
      }
    },
  };
}
