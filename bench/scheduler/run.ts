/**
 * Scheduler hot-path benchmark: requests per second through ModelScheduler with a no-op executor on the
 * real clock, against a bare array queue that batches the same way, measured in the same run.
 *
 *   node --import tsx bench/scheduler/run.ts [requests=200000]
 *
 * Traffic arrives in bursts of 1000 requests per macrotask; the no-op executor answers on a microtask, so
 * while it "runs" the pending batch grows (batches of up to max_batch_size 32, as under real load).
 */
import { EventBus } from '../../packages/core/src/events.ts';
import { RealClock } from '../../packages/core/src/clock/index.ts';
import { ModelScheduler } from '../../packages/core/src/scheduler/model-scheduler.ts';
import type { Executor, SchedulerRequest } from '../../packages/core/src/scheduler/types.ts';
import { ModelAggregator } from '../../packages/core/src/stats/index.ts';

const N = Number(process.argv[2] ?? 200_000);
const BURST = 1000;
const MAX_BATCH = 32;

const noop: Executor<number, number> = {
  execute: async (_i, batch) => batch.map((r) => r.payload),
  executeWithCallback: (_i, batch, done) => queueMicrotask(() => done(null, batch.map((r) => r.payload))),
};

const macrotask = () => new Promise<void>((r) => setImmediate(r));

async function drive(submit: (i: number, settle: () => void) => void): Promise<number> {
  let answered = 0;
  const settle = () => void answered++;
  const t0 = performance.now();
  for (let i = 0; i < N; ) {
    for (const end = Math.min(N, i + BURST); i < end; i++) submit(i, settle);
    await macrotask();
  }
  while (answered < N) await macrotask();
  return ((performance.now() - t0) * 1000) / N;
}

/** baseline: the same traffic through a plain array, batches of up to 32, answered on a microtask */
async function baseline(): Promise<number> {
  const queue: { i: number; settle: () => void }[] = [];
  let busy = false;
  const pump = (): void => {
    if (busy || queue.length === 0) return;
    busy = true;
    const batch = queue.splice(0, MAX_BATCH);
    queueMicrotask(() => {
      for (const r of batch) r.settle();
      busy = false;
      pump();
    });
  };
  return drive((i, settle) => {
    queue.push({ i, settle });
    pump();
  });
}

async function scheduler(listen: 'none' | 'count' | 'aggregate', promise = false): Promise<number> {
  const bus = new EventBus();
  let events = 0;
  if (listen === 'count') bus.on(() => void events++);
  if (listen === 'aggregate') {
    const agg = new ModelAggregator(1_000_000);
    bus.on((e) => agg.add(e));
  }
  const s = new ModelScheduler<number, number>({
    model: 'bench', version: '1', clock: new RealClock(), bus, executor: noop,
    config: { max_batch_size: MAX_BATCH, dynamic_batching: {}, instance_group: [{ count: 1, kind: 'KIND_CPU' }] },
  });
  await s.start();
  const req = (i: number): SchedulerRequest<number> => ({ batchSize: 1, shapeKey: '', payload: i });
  const us = promise
    ? await drive((i, settle) => void s.enqueue(req(i)).then(settle))
    : await drive((i, settle) => void s.submit(req(i), settle));
  if (s.stats.completed !== N) throw new Error(`lost requests: ${s.stats.completed}/${N}`);
  return us;
}

async function main(): Promise<void> {
  // warm-up so the JIT compiles both paths before measuring
  for (let k = 0; k < 2; k++) {
    await baseline();
    await scheduler('none');
  }
  // rounds interleave the variants and keep each one's best, so a noisy neighbour on a shared machine
  // (or a GC pause) does not decide the comparison
  const variants: [string, () => Promise<number>][] = [
    ['array-queue baseline', baseline],
    ['scheduler, submit(), no listener', () => scheduler('none')],
    ['scheduler, enqueue() promise, no listener', () => scheduler('none', true)],
    ['scheduler, submit(), events counted', () => scheduler('count')],
    ['scheduler, submit(), ModelAggregator', () => scheduler('aggregate')],
  ];
  const bestOf = variants.map(() => Infinity);
  for (let round = 0; round < 5; round++) {
    for (let v = 0; v < variants.length; v++) bestOf[v] = Math.min(bestOf[v], await variants[v][1]());
  }
  const base = bestOf[0];
  const rows: [string, number][] = variants.map(([name], v) => [name, bestOf[v]]);
  console.log(`scheduler bench: ${N} requests, bursts of ${BURST}, max_batch_size ${MAX_BATCH}, no-op executor, real clock`);
  console.log('| variant | µs/request | requests/s | ratio to baseline | scheduler µs/request over baseline |');
  console.log('|---|---|---|---|---|');
  for (const [name, us] of rows) {
    console.log(`| ${name} | ${us.toFixed(3)} | ${Math.round(1e6 / us).toLocaleString('en-US')} | ${(us / base).toFixed(2)}x | ${(us - base).toFixed(3)} |`);
  }
}

void main();
