/**
 * gRPC ModelInfer against its own floor, both under one external C client (h2load over h2c, the body of
 * h2load.ts: one FP32 [1,784] input in raw_input_contents):
 *   - InferScope's gRPC endpoint serving mlp_batched in the floors' batching rule (max_batch_size 16, no
 *     preferred sizes: bench-models.ts useFloorRule), one instance, live gateway on;
 *   - grpc-floor.ts: a grpc-js server configured as the product's, feeding the HTTP floor's pump (one
 *     worker thread running the same ONNX model on whatever is queued, up to 16);
 *   - grpc-floor.ts's bare node:http2 floor, the same pump: what the product's unary path
 *     (grpc/direct-unary.ts) stands on since it stopped going through grpc-js's call machinery.
 * Alternating rounds; the result is the median of the per-round ratios. Every InferScope round is checked
 * against the server's statistics, every floor round against the floor's own count of batched requests
 * (h2load sees HTTP 200 for a failed gRPC call).
 *
 *   node --import tsx bench/serve/h2load-grpc-floor.ts [--rounds 5] [--requests 30000] [--c 32] [--streams 1] [--delay-us 2000] [--live true] [--only all|inferscope|floor|h2]
 *   node --cpu-prof --cpu-prof-dir=prof --import tsx bench/serve/h2load-grpc-floor.ts --rounds 2 --only floor   # profile one side
 */
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../../apps/server/src/app';
import { benchInput, makeBenchRepository, useFloorRule } from './bench-models';
import { DEFAULT_MODEL } from './direct-ort';
import { arg } from '../args';
import { ensureH2load, grpcInferBody, h2load, type H2Result } from './h2load-client';
import { startGrpcFloor, startH2GrpcFloor } from './grpc-floor';
import { mainThreadCpuUs } from './thread-cpu';
import { settledCounts } from './server-counts';
import { median } from '../median';
import { gcMeter } from './gc-time';
import { hostConditions } from '../host';

const rounds = Number(arg('--rounds', '5'));
const requests = Number(arg('--requests', '30000'));
const c = Number(arg('--c', '32'));
const streams = Number(arg('--streams', '1'));
const delayUs = Number(arg('--delay-us', '2000'));
const live = arg('--live', 'true') !== 'false';
const only = arg('--only', 'all');
const MODEL = 'mlp_batched';

interface Run extends H2Result { main_us: number; all_us: number; avg_batch: number; gc_us: number; pauses_per_1k: number }

async function main(): Promise<void> {
  ensureH2load();
  const repo = makeBenchRepository(1, [MODEL]);
  useFloorRule(repo, delayUs);
  const server = await buildApp({ modelRepositories: [repo], httpPort: 0, metricsPort: null, grpcPort: 0, host: '127.0.0.1', live });
  const { url, grpcAddress } = await server.listen();
  const floor = await startGrpcFloor(DEFAULT_MODEL);
  const h2Floor = await startH2GrpcFloor(DEFAULT_MODEL);
  const gc = gcMeter();
  const bodyFile = join(tmpdir(), `inferscope-grpc-floor-${process.pid}.bin`);
  writeFileSync(bodyFile, grpcInferBody(MODEL, benchInput));
  const conns = Math.max(1, Math.round(c / streams));
  const args = (address: string, n: number) => ['-n', String(n), '-c', String(conns), '-m', String(streams), '-t', '1', '-d', bodyFile, '-H', 'content-type: application/grpc', '-H', 'te: trailers', `http://${address}/inference.GRPCInferenceService/ModelInfer`];

  /** one h2load run with this process's CPU around it; `served` reads how many requests the side really batched */
  const timed = async (address: string, n: number, served: () => Promise<{ requests: number; batches: number }>): Promise<Run> => {
    const before = await served();
    const gc0 = await gc.read();
    const cpu0 = process.cpuUsage();
    const main0 = mainThreadCpuUs();
    const r = await h2load(args(address, n));
    const cpu = process.cpuUsage(cpu0);
    const mainUs = mainThreadCpuUs() - main0;
    const after = await served();
    const gc1 = await gc.read();
    const ok = after.requests - before.requests;
    if (r.succeeded !== n || ok !== n) throw new Error(`${address}: h2load ${r.succeeded}/${n} succeeded, the server served ${ok}`);
    return { ...r, main_us: mainUs / n, all_us: (cpu.user + cpu.system) / n, avg_batch: ok / Math.max(1, after.batches - before.batches), gc_us: ((gc1.ms - gc0.ms) * 1000) / n, pauses_per_1k: ((gc1.pauses - gc0.pauses) * 1000) / n };
  };
  const inferscope = (n: number) => timed(grpcAddress!, n, async () => {
    const s = await settledCounts(url, MODEL);
    if (s.fail !== 0) throw new Error(`InferScope: ${s.fail} failed requests`);
    return { requests: s.success, batches: s.executions };
  });
  const floorRun = (n: number) => timed(floor.address, n, async () => floor.formed());
  const h2Run = (n: number) => timed(h2Floor.address, n, async () => h2Floor.formed());
  const sides: Array<[string, (n: number) => Promise<Run>]> = [['inferscope', inferscope], ['floor', floorRun], ['h2', h2Run]];

  console.log(`h2load gRPC -c${conns} -m${streams}, ${requests} requests per run, ${rounds} rounds, max_queue_delay ${delayUs} µs, batching rule floor, live gateway ${live ? 'on' : 'off'}, ${hostConditions()}`);
  try {
    for (const [, side] of sides) await side(3000);
    const ratios: number[] = [];
    const h2Ratios: number[] = [];
    const mainRatios: number[] = [];
    const cols = (name: string) => `${name} req/s | mean ms | main thread µs/req | all threads µs/req | avg batch | GC µs/req (pauses per 1k)`;
    console.log(`round | ${cols('InferScope')} | ${cols('grpc-js floor with model')} | ${cols('node:http2 floor with model')} | InferScope / grpc-js floor | InferScope / http2 floor`);
    for (let round = 1; round <= rounds; round++) {
      // a different side first in each round
      const order = [...sides.slice(round % 3), ...sides.slice(0, round % 3)].filter(([name]) => only === 'all' || name === only);
      const res = new Map<string, Run>();
      for (const [name, side] of order) res.set(name, await side(requests));
      const a = res.get('inferscope'), b = res.get('floor'), h = res.get('h2');
      const row = (r: Run | undefined) => (r ? `${r.req_per_s.toFixed(0)} | ${r.mean_ms.toFixed(2)} | ${r.main_us.toFixed(1)} | ${r.all_us.toFixed(1)} | ${r.avg_batch.toFixed(1)} | ${r.gc_us.toFixed(1)} (${r.pauses_per_1k.toFixed(1)})` : '- | - | - | - | - | -');
      const ratio = (x: Run | undefined, y: Run | undefined, into: number[]) => {
        if (!x || !y) return '-';
        into.push(x.req_per_s / y.req_per_s);
        return into.at(-1)!.toFixed(2);
      };
      if (a && b) mainRatios.push(b.main_us / a.main_us);
      console.log(`${round} | ${row(a)} | ${row(b)} | ${row(h)} | ${ratio(a, b, ratios)} | ${ratio(a, h, h2Ratios)}`);
    }
    const summary = (xs: number[]) => `${median(xs).toFixed(2)} (rounds ${xs.map((x) => x.toFixed(2)).join(', ')})`;
    if (ratios.length) console.log(`InferScope gRPC / grpc-js floor with model (h2load, c=${c}): req/s median ${summary(ratios)}; main-thread CPU per request, floor / InferScope, median ${median(mainRatios).toFixed(2)}`);
    if (h2Ratios.length) console.log(`InferScope gRPC / node:http2 floor with model: req/s median ${summary(h2Ratios)}`);
  } finally {
    gc.close();
    rmSync(bodyFile, { force: true });
    await floor.close();
    await h2Floor.close();
    await server.close();
    rmSync(repo, { recursive: true, force: true });
  }
}

await main();
