/**
 * CPU contention: CPU instances share the host's cores. n busy instances on c cores run at min(1, c/n) of
 * their solo speed each (one intra-op thread per instance, as the bundled configs set), so instances help
 * up to the cores and then stop helping: 4 instances on 2 cores give 2x one instance, not 4x. `cores` may
 * be a measured effective figure (a shared VM whose other tenants keep part of a core busy gives 1.3,
 * not 2: see the server's cores probe).
 *
 * The server's main thread is a CPU consumer too: every request costs it `mainUsPerRequest` of work
 * (input, scheduler, events, hand-off, answer; measured by the server's main-thread probe). Its load is the
 * fraction of a core that work takes at the current request rate, estimated with an exponential moving
 * average over `MAIN_LOAD_WINDOW_US`, and it counts beside the busy instances.
 *
 * While the server's RealClock turns its loop for a sub-millisecond wait (setImmediate, no sleep), the
 * main thread takes a whole core whatever its request work: `begin(now, true)` counts it so. Two CNN
 * instances under overload on 2 vCPUs share them with a spinning main thread (three threads on two
 * cores), which is why they serve ~1.15 instances' worth, not the 1.8 the cores probe gives two alone.
 *
 * The rate is fixed when a batch starts, from the load at that moment including itself (a steady-state
 * approximation: a batch that starts alone is not slowed by one that starts after it). Under sustained
 * load every instance is busy and the approximation is exact; that is the regime the lessons and the
 * fidelity benchmark measure.
 */

/** Time constant of the main thread's load estimate: a few batches long, so it follows the traffic's rate. */
export const MAIN_LOAD_WINDOW_US = 10_000;

export class CpuHost {
  private running = 0;
  private mainLoad = 0;
  private mainAt = 0;

  /** cores: Infinity = no contention (the default when a simulation names no host) */
  constructor(
    readonly cores: number = Infinity,
    readonly mainUsPerRequest = 0,
  ) {
    if (!(cores > 0)) throw new Error(`a host needs a positive number of cores, got ${cores}`);
    if (!(mainUsPerRequest >= 0)) throw new Error(`main-thread work per request must be >= 0 µs, got ${mainUsPerRequest}`);
  }

  /** a request reached the server at `nowUs`: its main-thread work adds to the load */
  request(nowUs: number): void {
    if (this.mainUsPerRequest === 0) return;
    this.mainLoad = this.decayed(nowUs) + this.mainUsPerRequest / MAIN_LOAD_WINDOW_US;
    this.mainAt = nowUs;
  }

  /** a CPU batch starts: returns its slowdown factor (>= 1); `mainSpinning`: the main thread holds a core */
  begin(nowUs = this.mainAt, mainSpinning = false): number {
    this.running++;
    const main = mainSpinning ? 1 : Math.min(1, this.decayed(nowUs));
    return Math.max(1, (this.running + main) / this.cores);
  }

  end(): void {
    this.running = Math.max(0, this.running - 1);
  }

  get busy(): number {
    return this.running;
  }

  private decayed(nowUs: number): number {
    return this.mainLoad * Math.exp(-Math.max(0, nowUs - this.mainAt) / MAIN_LOAD_WINDOW_US);
  }
}

export const isCpuKind = (kind: string | undefined): boolean => kind === 'KIND_CPU' || kind === 'KIND_AUTO';
