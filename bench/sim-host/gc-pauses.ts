/**
 * Garbage collections of the server's main thread. Every request allocates (its input, the scheduler's
 * entries and events, promises, the answer), so after a roughly fixed number of requests V8's young
 * generation is full and a collection stops the main thread for a while (~1 ms here): a main-thread stall
 * whose rate follows the request rate, which the stall probe's idle loop cannot see. Measured by the
 * server's main-thread probe (perf_hooks 'gc' entries over its run): requests per collection and pause
 * lengths. GcPauses counts requests and, every `requests_per_gc` of them, starts a pause drawn from the
 * measured lengths (the first after a random share, so runs do not line up); what falls in a pause
 * happens at its end, as in a stall.
 */
import type { Rng } from '@inferscope/core/load';
import { EmpiricalDistribution, schemaProblems } from '@inferscope/core/sim';
import { GcProfileSchema, type GcProfile } from './schemas';

export type { GcProfile };

export function validateGcProfile(g: unknown, what = 'gc'): string[] {
  return schemaProblems(GcProfileSchema, g, what);
}

export class GcPauses {
  private readonly pause: EmpiricalDistribution;
  private untilNext: number;
  private readonly starts: number[] = [];
  private readonly ends: number[] = [];

  constructor(
    private readonly profile: GcProfile,
    private readonly rng: Rng,
  ) {
    this.pause = new EmpiricalDistribution(profile.pause_us);
    this.untilNext = rng.next() * profile.requests_per_gc;
  }

  /** a request was taken in at `tUs` (the main thread runs then): it may start a collection */
  request(tUs: number): void {
    this.untilNext -= 1;
    if (this.untilNext > 0) return;
    this.untilNext += this.profile.requests_per_gc;
    const start = Math.max(tUs, this.ends[this.ends.length - 1] ?? -Infinity);
    this.starts.push(start);
    this.ends.push(start + Math.max(0, this.pause.sample(this.rng)));
    // only pauses that may still cover a time asked about are kept (times asked about never go back far)
    if (this.starts.length > 64) {
      this.starts.splice(0, 32);
      this.ends.splice(0, 32);
    }
  }

  /** when something due at `tUs` on the main thread happens: at once, or at the end of the pause it falls in */
  releaseAt(tUs: number): number {
    for (let i = this.starts.length - 1; i >= 0 && this.ends[i] > tUs; i--) if (this.starts[i] <= tUs) return this.ends[i];
    return tUs;
  }
}
