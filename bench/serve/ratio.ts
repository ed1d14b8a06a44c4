/**
 * The "in-process vs direct onnxruntime" ratio, measured so that a slow spell of a shared machine cannot
 * decide it: short rounds, each one an in-process cell followed at once by direct onnxruntime and the
 * worker-thread reference at exactly the batch sizes that cell formed. Every round gives its own ratios;
 * the median over the rounds is the result (a single 3 s cell against a baseline measured a minute
 * earlier swung from 0.58 to 0.74 between two runs on the same code).
 *
 *   node --import tsx bench/serve/ratio.ts [--rounds 9] [--ms 1500] [--c 32] [--live true]
 *
 * Per round: server = in-process req/s (ModelManager.infer, the scheduler, one worker-thread instance);
 * direct = one session in this thread at the same batch mix; worker = one session in a worker thread
 * fed with a batch always queued (worker-ort.ts). server/direct is the target (>= 0.85);
 * worker/direct is what the thread hand-off alone costs; server/worker is what the scheduler adds.
 * Each round also runs mlp_nobatch (same weights, no dynamic_batching) for batching on / off (>= 5x).
 */
import { rmSync } from 'node:fs';
import type { SchedulerEvent } from '@inferscope/core';
import { benchInput, makeBenchRepository, type BenchModel } from './bench-models';
import { directThroughputForMix, measureDirectOrt } from './direct-ort';
import { inProcessClosedLoop } from './load';
import { startInferScope } from './server-under-test';
import { measureWorkerOrt } from './worker-ort';
import { arg } from '../args';
import { median } from '../median';

const rounds = Number(arg('--rounds', '9'));
const ms = Number(arg('--ms', '1500'));
const concurrency = Number(arg('--c', '32'));
const model: BenchModel = 'mlp_batched';
const live = arg('--live', 'true') !== 'false';


const dir = makeBenchRepository(1, [model, 'mlp_nobatch']);
const closedLoop = (name: BenchModel) =>
  inProcessClosedLoop(() => server.infer(name, { batchSize: 1, shapeKey: '', payload: { inputs: [benchInput] } }), {
    concurrency,
    durationMs: ms,
    warmupMs: 300,
  });
const server = await startInferScope(dir, live);
let hist: Record<number, number> = {};
const off = server.bus.on((e: SchedulerEvent) => {
  if (e.type === 'batch.formed') hist[e.size] = (hist[e.size] ?? 0) + 1;
});
const rows: { server: number; direct: number; worker: number; avgBatch: number; nobatch: number }[] = [];
try {
  console.log(`in-process ${model} c=${concurrency}, live gateway ${live ? 'on' : 'off'}, ${rounds} rounds of ${ms} ms (+ direct and worker references at the same batch sizes after each)`);
  // One unrecorded round first: the server path's first second runs on cold JIT (it came out at 0.37).
  await closedLoop(model);
  await closedLoop('mlp_nobatch');
  for (let r = 0; r < rounds; r++) {
    hist = {};
    const res = await closedLoop(model);
    const sizes = Object.keys(hist).map(Number);
    const batches = Object.values(hist).reduce((a, b) => a + b, 0);
    const avgBatch = sizes.reduce((a, s) => a + s * hist[s], 0) / batches;
    const opts = { batchSizes: sizes, durationMs: Math.max(150, Math.round(ms / (2 * sizes.length))) };
    const direct = directThroughputForMix(await measureDirectOrt(opts), hist);
    const worker = directThroughputForMix(await measureWorkerOrt(opts), hist);
    const nobatch = (await closedLoop('mlp_nobatch')).req_per_s;
    rows.push({ server: res.req_per_s, direct, worker, avgBatch, nobatch });
    console.log(
      `round ${r + 1}: server ${Math.round(res.req_per_s)} req/s (avg batch ${avgBatch.toFixed(1)}), direct ${Math.round(direct)}/s, worker ${Math.round(worker)}/s` +
        ` | server/direct ${(res.req_per_s / direct).toFixed(2)}  worker/direct ${(worker / direct).toFixed(2)}  server/worker ${(res.req_per_s / worker).toFixed(2)}` +
        ` | no batching ${Math.round(nobatch)} req/s, on/off ${(res.req_per_s / nobatch).toFixed(1)}x`,
    );
  }
} finally {
  off();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}
const sd = rows.map((x) => x.server / x.direct);
const wd = rows.map((x) => x.worker / x.direct);
const sw = rows.map((x) => x.server / x.worker);
console.log(`\nmedian over ${rows.length} rounds: server/direct ${median(sd).toFixed(2)} (range ${Math.min(...sd).toFixed(2)}-${Math.max(...sd).toFixed(2)}, target >= 0.85)`);
console.log(`                        worker/direct ${median(wd).toFixed(2)} (range ${Math.min(...wd).toFixed(2)}-${Math.max(...wd).toFixed(2)}): the thread hand-off alone`);
const onOff = rows.map((x) => x.server / x.nobatch);
console.log(`                        batching on/off ${median(onOff).toFixed(1)}x (range ${Math.min(...onOff).toFixed(1)}-${Math.max(...onOff).toFixed(1)}, target >= 5)`);
console.log(`                        server/worker ${median(sw).toFixed(2)} (range ${Math.min(...sw).toFixed(2)}-${Math.max(...sw).toFixed(2)}): what the scheduler adds`);
