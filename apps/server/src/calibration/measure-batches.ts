/**
 * Times a model's batches on its real backend, the way the scheduler sends them: one instance, batches
 * sent one after the other through the executor, every run recorded (after a short warm-up) as a
 * BatchRecord for core's fitBatchRecords. Used by `inferscope calibrate` and by the fidelity benchmark's
 * same-run baseline (whose host measurements are bench/calibration/host-measures.ts).
 */
import type { InferPayload, SchedulerRequest, Tensor, Executor, InferResult, InstanceInfo } from '@inferscope/core';
import type { ModelConfig } from '@inferscope/core/config';
import type { BatchRecord } from '@inferscope/core/sim';

export const CALIBRATION_SIZES = [1, 2, 4, 8, 12, 16, 24, 32, 48, 64];

/** The median of `xs` (the upper one of an even count), as every measurement here reports it. */
export const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** One request of `rows` samples with deterministic contents. */
export function requestOf(config: ModelConfig, rows: number, seqLen: number, id: string): SchedulerRequest<InferPayload> {
  const inputs: Tensor[] = (config.input ?? []).map((inp) => {
    const dims = (inp.dims ?? []).map((d) => (d < 0 ? seqLen : d));
    const n = rows * dims.reduce((a, b) => a * b, 1);
    const shape = [rows, ...dims];
    if (inp.data_type === 'TYPE_INT64') return { name: inp.name ?? '', datatype: 'INT64', shape, data: BigInt64Array.from({ length: n }, (_, i) => BigInt((i * 7919) % 1000)) };
    if (inp.data_type === 'TYPE_FP32') return { name: inp.name ?? '', datatype: 'FP32', shape, data: Float32Array.from({ length: n }, (_, i) => Math.sin(i * 0.37) * 0.5 + 0.5) };
    throw new Error(`${config.name}: input ${inp.name} has ${inp.data_type}; calibrate knows FP32 and INT64`);
  });
  return { id, batchSize: rows, shapeKey: '', payload: { inputs } };
}

/**
 * Every run's µs of `run` after a warm-up (at least three calls and 30 ms: caches, allocator, and a worker
 * thread that was asleep): at least 15 runs and `minMs` of measuring, at most 400 runs.
 */
export async function timeRuns(run: () => Promise<unknown>, minMs: number): Promise<number[]> {
  const warm = performance.now();
  for (let i = 0; i < 3 || (performance.now() - warm < 30 && i < 400); i++) await run();
  const times: number[] = [];
  const start = performance.now();
  while (times.length < 15 || (performance.now() - start < minMs && times.length < 400)) {
    const t0 = performance.now();
    await run();
    times.push((performance.now() - t0) * 1000);
  }
  return times;
}

export interface MeasureOptions {
  sizes?: readonly number[];
  minMs: number;
  seqLen: number;
  onSize?: (size: number, runs: number[]) => void;
}

/** Batch records of an executor's started instance at each size. */
export async function measureBatchRecords(executor: Executor<InferPayload, InferResult>, info: InstanceInfo, config: ModelConfig, o: MeasureOptions): Promise<BatchRecord[]> {
  const records: BatchRecord[] = [];
  for (const b of o.sizes ?? CALIBRATION_SIZES) {
    const req = requestOf(config, b, o.seqLen, `cal-${b}`);
    const runs = await timeRuns(() => executor.execute(info, [req]), o.minMs);
    for (const us of runs) records.push({ size: b, us });
    o.onSize?.(b, runs);
  }
  return records;
}

/**
 * Batches of each size with two in flight: the instance is handed its next batch while it computes (as the
 * server's prefetch does whenever the queue holds more), so it begins that batch the moment the running
 * one ends. The interval between two answers is then the instance's own cycle, the hand-off to its worker
 * and back hidden behind the batch before; back to back (measureBatchRecords) the hand-off is in every
 * batch: 80-100 µs at batch 1 and 200-300 µs at 16-32 for the CNN here (its inputs are copied to the worker
 * while the previous batch computes). Adds each size's intervals to `into` (size -> µs).
 */
export async function measureHeldBatches(executor: Executor<InferPayload, InferResult>, info: InstanceInfo, config: ModelConfig, o: MeasureOptions, into: Map<number, number[]>): Promise<void> {
  for (const b of o.sizes ?? CALIBRATION_SIZES) {
    const intervals = into.get(b) ?? into.set(b, []).get(b)!;
    intervals.push(...await heldIntervals(executor, info, requestOf(config, b, o.seqLen, `cal-held-${b}`), o.minMs));
  }
}

/**
 * µs between answers of `req` sent to one instance with two in flight (a new one sent at each answer),
 * after three warm-up answers: at least 15 intervals and `minMs` of measuring, at most 400.
 */
export function heldIntervals(executor: Executor<InferPayload, InferResult>, info: InstanceInfo, req: SchedulerRequest<InferPayload>, minMs: number): Promise<number[]> {
  const WARM = 3;
  const intervals: number[] = [];
  return new Promise((resolve, reject) => {
    let last: number | undefined;
    let answered = 0;
    let inFlight = 0;
    let stopped = false;
    let start = 0;
    const send = () => {
      inFlight++;
      executor.execute(info, [req]).then(() => {
        inFlight--;
        const now = performance.now();
        if (++answered === WARM) start = now;
        else if (answered > WARM) intervals.push((now - last!) * 1000);
        last = now;
        stopped ||= intervals.length >= 400 || (intervals.length >= 15 && now - start >= minMs);
        if (!stopped) send();
        else if (inFlight === 0) resolve(intervals);
      }, reject);
    };
    send();
    send();
  });
}

/** Idle gaps before a batch the wake-up measurement uses, µs (back to back, then moderate traffic's gaps). */
export const IDLE_GAPS_US = [0, 300, 1000, 3000, 10000];

/**
 * What a batch costs on top of its back-to-back time when its instance sat idle before it: the worker
 * thread asleep (woken through the OS), its caches refilled with the weights. Moderate traffic runs every
 * batch that way; `inferscope calibrate`'s table is back to back. Batches of `size` after each gap in
 * IDLE_GAPS_US (`runs` each): idle µs -> median extra µs over the gap-0 median (never below 0).
 */
export async function measureIdlePenalty(executor: Executor<InferPayload, InferResult>, info: InstanceInfo, config: ModelConfig, seqLen: number, size = 1, runs = 40): Promise<Record<string, number>> {
  const req = requestOf(config, size, seqLen, 'cal-idle');
  // sub-millisecond gaps turn the event loop (setImmediate) until they are over, longer ones sleep
  const sleepUs = (us: number) => new Promise<void>((resolve) => {
    const until = performance.now() + us / 1000;
    const check = () => (performance.now() >= until ? resolve() : us < 1000 ? setImmediate(check) : setTimeout(check, Math.max(1, Math.floor((until - performance.now())))));
    check();
  });
  const byGap: { idle: number[]; us: number[] }[] = IDLE_GAPS_US.map(() => ({ idle: [], us: [] }));
  for (let i = 0; i < 3; i++) await executor.execute(info, [req]);
  let lastEnd = performance.now();
  const run = async () => {
    const t0 = performance.now();
    await executor.execute(info, [req]);
    const t1 = performance.now();
    const idle = (t0 - lastEnd) * 1000;
    lastEnd = t1;
    return { idle, us: (t1 - t0) * 1000 };
  };
  for (let r = 0; r < runs; r++) {
    for (const [g, gap] of IDLE_GAPS_US.entries()) {
      if (gap > 0) await sleepUs(gap);
      else await run(); // back to back: right after another batch
      const m = await run();
      byGap[g].idle.push(m.idle);
      byGap[g].us.push(m.us);
    }
  }
  const hot = median(byGap[0].us);
  return Object.fromEntries(byGap.map((b) => [String(Math.round(median(b.idle))), Math.max(0, Math.round(median(b.us) - hot))]));
}
