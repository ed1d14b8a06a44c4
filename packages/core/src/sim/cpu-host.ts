/**
 * CPU contention: CPU instances share the host's cores. n busy instances on c cores run at min(1, c/n) of
 * their solo speed each (one intra-op thread per instance, as the bundled configs set), so instances help
 * up to the cores and then stop helping: 4 instances on 2 cores give 2x one instance, not 4x. `cores` is
 * the calibration machine's count unless a simulation is told otherwise.
 *
 * A model of the server's own threads (the bench's host model: its main thread's work per request, a
 * main thread spinning through a sub-millisecond wait) counts them beside the busy instances through
 * `begin(otherThreads)`; the product's simulation has none.
 *
 * The rate is fixed when a batch starts, from the load at that moment including itself (a steady-state
 * approximation: a batch that starts alone is not slowed by one that starts after it). Under sustained
 * load every instance is busy and the approximation is exact; that is the regime the lessons measure.
 */
export class CpuHost {
  private running = 0;

  /** cores: Infinity = no contention (the default when a simulation names no host) */
  constructor(readonly cores: number = Infinity) {
    if (!(cores > 0)) throw new Error(`a host needs a positive number of cores, got ${cores}`);
  }

  /** a CPU batch starts: returns its slowdown factor (>= 1); `otherThreads`: cores' worth of other busy threads */
  begin(otherThreads = 0): number {
    this.running++;
    return Math.max(1, (this.running + otherThreads) / this.cores);
  }

  end(): void {
    this.running = Math.max(0, this.running - 1);
  }

  get busy(): number {
    return this.running;
  }
}

export const isCpuKind = (kind: string | undefined): boolean => kind === 'KIND_CPU' || kind === 'KIND_AUTO';
