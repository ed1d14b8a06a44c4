/**
 * Ensemble overhead, in process (no HTTP), in ONE run: the `pipe` ensemble asked for OUT only (steps
 * scale -> project) against the same two models chained by hand (scale, then project on its output), both
 * through ModelManager.infer and the same schedulers, closed loop at each concurrency, rounds interleaved;
 * and the hand chain again with each request checked by the KServe codec (what an HTTP client's chain pays).
 * The models are tiny (a multiply-add and a 4x3 matmul), so what the ensemble adds (re-checking and copying
 * each step's inputs, its events, the graph bookkeeping) is as large a share as it can be: a worst case.
 *
 *   node --import tsx bench/ensemble/run.ts [--ms 2000] [--warmup 500] [--c 1,8,32] [--rounds 3]
 */
import type { InferPayload, SchedulerRequest, Tensor } from '@inferscope/core';
import { startTestServer } from '../../test/support/server.ts';
import { ensembleRepository } from '../../test/ensemble/fixtures.ts';
import { inProcessClosedLoop, type LoadResult } from '../serve/load';
import { arg } from '../args';
import { encodeBinaryData } from '../../apps/server/src/infer/binary-data';
import { modelSpecFor } from '../../apps/server/src/infer/model-spec';
import { toSchedulerRequest, validateInferRequest } from '../../apps/server/src/infer/validate-request';
import { median } from '../median';

const durationMs = Number(arg('--ms', '2000'));
const warmupMs = Number(arg('--warmup', '500'));
const concurrencies = arg('--c', '1,8,32').split(',').map(Number);
const rounds = Number(arg('--rounds', '3'));

const fx = await ensembleRepository(['scale', 'project', 'negate', 'pipe'], { batching: 'dynamic_batching { max_queue_delay_microseconds: 200 }' });
const server = await startTestServer({ modelRepositories: [fx.dir], live: false, eventCap: 0 });
const manager = server.built.manager;

const input = (name: string, data: Float32Array): Tensor => ({ name, datatype: 'FP32', shape: [1, 4], data });
const req = (inputs: Tensor[], outputs: string[]): SchedulerRequest<InferPayload> => ({ batchSize: 1, shapeKey: '', payload: { inputs, outputs } });
const x = Float32Array.from([1, 2, 3, 4]);

const viaEnsemble = () => manager.infer('pipe', '1', { ...req([input('IN', Float32Array.from(x))], ['OUT']), shapeKey: '4' });
const byHand = async () => {
  const [mid] = await manager.infer('scale', '1', req([input('x', Float32Array.from(x))], ['y']));
  return manager.infer('project', '1', req([{ ...mid!, name: 'x' }], ['z']));
};
// the same chain with each request checked by the KServe codec, as a client's HTTP request would be
const checked = (model: string, t: Tensor, output: string) => {
  const served = manager.require(model, '1');
  const parsed = { inputs: [{ name: t.name, datatype: t.datatype, shape: t.shape, binary: encodeBinaryData(t.datatype, t.data) }], outputs: [{ name: output }], binaryOutput: true };
  return manager.infer(model, '1', toSchedulerRequest(validateInferRequest(parsed, modelSpecFor(model, '1', served.config))));
};
const byHandChecked = async () => {
  const [mid] = await checked('scale', input('x', x), 'y');
  return checked('project', { ...mid!, name: 'x' }, 'z');
};

const rows: Array<{ c: number; round: number; ensemble: LoadResult; hand: LoadResult; handChecked: LoadResult }> = [];
try {
  for (const c of concurrencies) {
    for (let round = 1; round <= rounds; round++) {
      const opts = { concurrency: c, durationMs, warmupMs };
      // alternate which goes first, so drift on a shared machine does not favour one side
      const first = round % 2 === 1;
      const a = await inProcessClosedLoop(first ? viaEnsemble : byHand, opts);
      const b = await inProcessClosedLoop(first ? byHand : viaEnsemble, opts);
      const handChecked = await inProcessClosedLoop(byHandChecked, opts);
      rows.push({ c, round, ensemble: first ? a : b, hand: first ? b : a, handChecked });
    }
  }
} finally {
  await server.close();
  await fx.remove();
}

console.log('| c | round | ensemble req/s | by hand req/s | by hand + codec req/s | CPU µs/req ensemble / by hand / + codec | ensemble p50 / p99 ms | by hand p50 / p99 ms | errors |');
console.log('|---|---|---|---|---|---|---|---|---|');
for (const r of rows) {
  const f = (l: LoadResult) => `${l.p50_ms.toFixed(2)} / ${l.p99_ms.toFixed(2)}`;
  console.log(`| ${r.c} | ${r.round} | ${r.ensemble.req_per_s.toFixed(0)} | ${r.hand.req_per_s.toFixed(0)} | ${r.handChecked.req_per_s.toFixed(0)} | ${r.ensemble.cpu_us_per_req?.toFixed(0)} / ${r.hand.cpu_us_per_req?.toFixed(0)} / ${r.handChecked.cpu_us_per_req?.toFixed(0)} | ${f(r.ensemble)} | ${f(r.hand)} | ${r.ensemble.errors + r.hand.errors + r.handChecked.errors} |`);
}
for (const c of concurrencies) {
  const mine = rows.filter((r) => r.c === c);
  const tput = mine.map((r) => r.ensemble.req_per_s / r.hand.req_per_s);
  const tputChecked = mine.map((r) => r.ensemble.req_per_s / r.handChecked.req_per_s);
  // the CPU window can miss a cell that ended before its timer: those rounds are left out
  const cpu = mine.filter((r) => r.ensemble.cpu_us_per_req && r.hand.cpu_us_per_req).map((r) => r.ensemble.cpu_us_per_req! / r.hand.cpu_us_per_req!);
  console.log(`c=${c}: median ensemble / by hand: throughput ${median(tput).toFixed(2)} (rounds ${tput.map((v) => v.toFixed(2)).join(', ')}), CPU per request ${cpu.length ? median(cpu).toFixed(2) : '-'} (rounds ${cpu.map((v) => v.toFixed(2)).join(', ')}); ensemble / by hand + codec: throughput ${median(tputChecked).toFixed(2)}`);
}
