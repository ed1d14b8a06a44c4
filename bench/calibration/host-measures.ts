/**
 * What `bench calibrate` measures of a model beyond what `simulate` and teaching mode use (the server's
 * measure-batches.ts): the spin wake-up of an instance woken while the main thread spins, the main
 * thread's own wake-up for an answer, and what two instances of the model get from the cores. Run while
 * the model is loaded, through calibrateModel's `whileLoaded` hook.
 */
import type { Executor, InferPayload, InferResult, InstanceInfo } from '@inferscope/core';
import type { ModelConfig } from '@inferscope/core/config';
import { quantilesOf, type Quantiles } from '@inferscope/core/sim';
import { mulberry32 } from '@inferscope/core/load';
import { heldIntervals, median, requestOf, timeRuns } from '../../apps/server/src/calibration/measure-batches';

/** Idle gaps of the spin-wake measurement, µs: moderate traffic's gaps between batches. */
export const SPIN_WAKE_GAP_US = [300, 3000] as const;

/**
 * What a batch after idle costs when the main thread spun meanwhile, beyond what it costs when the main
 * thread slept. RealClock turns the event loop (setImmediate) through every wait shorter than a
 * millisecond, so a server whose next timer is that close holds a core while its instance sleeps; on a
 * host short of cores the woken instance then waits for one (a tail of milliseconds on a few batches).
 * `runs` pairs of batches of `size`, each after a gap drawn from SPIN_WAKE_GAP_US: one after the main
 * thread slept (setTimeout; under a millisecond, one timer) and waits asleep for the answer, one with the
 * main thread spinning through the gap and the batch. Returns the quantiles of (spun - median slept), µs,
 * the distribution the simulator draws from (CostModel.spin_wake_us).
 */
export async function measureSpinWake(executor: Executor<InferPayload, InferResult>, info: InstanceInfo, config: ModelConfig, seqLen: number, size = 1, runs = 200): Promise<Quantiles> {
  const req = requestOf(config, size, seqLen, 'cal-spin');
  const sleep = (us: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.max(1, Math.round(us / 1000))));
  const timed = async () => {
    const t0 = performance.now();
    await executor.execute(info, [req]);
    return (performance.now() - t0) * 1000;
  };
  // The main thread turns its loop through the gap AND while the batch runs, as a server's does when its
  // next short wait is pending: it does not hand its core back the moment it posts the batch.
  const spunRun = (gapUs: number) => new Promise<number>((resolve) => {
    const sendAt = performance.now() + gapUs / 1000;
    let sent = false;
    let answered: number | undefined;
    const turn = () => {
      if (answered !== undefined) return resolve(answered);
      if (!sent && performance.now() >= sendAt) {
        sent = true;
        void timed().then((us) => (answered = us));
      }
      setImmediate(turn);
    };
    setImmediate(turn);
  });
  for (let i = 0; i < 3; i++) await executor.execute(info, [req]);
  const slept: number[] = [];
  const spun: number[] = [];
  const rnd = mulberry32(size);
  const [lo, hi] = SPIN_WAKE_GAP_US;
  for (let r = 0; r < runs; r++) {
    await sleep(lo + rnd() * (hi - lo));
    slept.push(await timed());
    spun.push(await spunRun(lo + rnd() * (hi - lo)));
  }
  const typical = median(slept);
  return quantilesOf(spun.map((us) => us - typical), 0);
}

/**
 * The main thread's wake-up for an answer, µs: batches of 1 sent back to back while it sleeps between them
 * (awaiting, as calibrate's table is measured) against the same while it turns its loop (setImmediate, as a
 * RealClock with a sub-millisecond wait pending does), alternated `rounds` times; the median of the
 * per-round differences of medians, never below 0. On this 2-vCPU VM: 50-90 µs (single rounds ~0 at times).
 */
export async function measureAnswerWake(executor: Executor<InferPayload, InferResult>, info: InstanceInfo, config: ModelConfig, seqLen: number, rounds = 5, minMs = 200): Promise<number> {
  const req = requestOf(config, 1, seqLen, 'cal-wake');
  const run = () => executor.execute(info, [req]);
  const diffs: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const asleep = median(await timeRuns(run, minMs));
    let turning = true;
    const turn = () => { if (turning) setImmediate(turn); };
    setImmediate(turn);
    try {
      diffs.push(asleep - median(await timeRuns(run, minMs)));
    } finally {
      turning = false;
    }
  }
  return Math.max(0, Math.round(median(diffs)));
}

/**
 * How many instances' worth of throughput this host gives the model when `instances` of it compute at
 * once: `instances` x (alone / together) at batch `size`. Two vCPUs that are hyperthreads of one core give
 * a scalar loop ~1.9 but a compute-bound convolution far less; so the figure is the model's own, not a
 * generic core count. `infos`: started instances of the executor, the first one the solo instance.
 */
export async function measureParallelCores(executor: Executor<InferPayload, InferResult>, infos: readonly InstanceInfo[], config: ModelConfig, seqLen: number, size: number, minMs: number): Promise<number> {
  // Each instance held its next batch (two in flight), as under the load where instances compete: sent
  // one at a time, an instance idles through every hand-off and leaves the cores to the other then.
  const req = requestOf(config, size, seqLen, 'cal-parallel');
  const alone = await heldIntervals(executor, infos[0], req, minMs);
  const together = await Promise.all(infos.map((info) => heldIntervals(executor, info, req, minMs)));
  const each = median(together.flat());
  return Math.round(Math.min(infos.length, Math.max(0.5, (infos.length * median(alone)) / each)) * 100) / 100;
}
