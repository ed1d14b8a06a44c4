/**
 * The server's main thread as a CPU consumer: every request costs it `usPerRequest` of work (input,
 * scheduler, events, hand-off, answer; measured by the main-thread probe). Its load is the fraction of a
 * core that work takes at the current request rate, estimated with an exponential moving average over
 * MAIN_LOAD_WINDOW_US, and it counts beside the busy CPU instances (core's CpuHost.begin(otherThreads)).
 *
 * While the server's RealClock turns its loop for a sub-millisecond wait (setImmediate, no sleep), the
 * main thread takes a whole core whatever its request work (HostSimExecutor counts it so). Two CNN
 * instances under overload on 2 vCPUs share them with a spinning main thread (three threads on two
 * cores), which is why they serve ~1.15 instances' worth, not the 1.8 the cores probe gives two alone.
 */

/** Time constant of the main thread's load estimate: a few batches long, so it follows the traffic's rate. */
export const MAIN_LOAD_WINDOW_US = 10_000;

export class MainThreadLoad {
  private load = 0;
  private lastUs = 0;

  constructor(readonly usPerRequest = 0) {
    if (!(usPerRequest >= 0)) throw new Error(`main-thread work per request must be >= 0 µs, got ${usPerRequest}`);
  }

  /** a request reached the server at `nowUs`: its main-thread work adds to the load */
  request(nowUs: number): void {
    if (this.usPerRequest === 0) return;
    this.load = this.at(nowUs) + this.usPerRequest / MAIN_LOAD_WINDOW_US;
    this.lastUs = nowUs;
  }

  /** cores' worth of main-thread work at `nowUs` (decayed since the last request) */
  at(nowUs: number): number {
    return this.load * Math.exp(-Math.max(0, nowUs - this.lastUs) / MAIN_LOAD_WINDOW_US);
  }
}
