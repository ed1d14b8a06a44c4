/**
 * The response cache on a workload whose inputs repeat half the time: cache on vs off, throughput and p99
 * as ratios, in interleaved rounds (a slow spell of the shared machine hits both sides alike).
 *
 *   npx tsx bench/cache/run.ts [--rounds 5] [--ms 1500] [--c 16] [--hot 32]
 *
 * Both sides are the production server (buildApp, ModelManager.infer: validation is skipped, the cache,
 * the dynamic batcher and a worker-thread onnxruntime instance are not) on mlp_classifier's weights. Each
 * request is, with probability 1/2, one of `--hot` inputs (repeats after their first use), else an input
 * never sent before. The "on" server runs `--cache-config local,size=16MiB` with `response_cache
 * { enable: true }`; the "off" server has neither.
 */
import { rmSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { InferPayload } from '@inferscope/core';
import { Rng } from '@inferscope/core/load';
import { buildApp } from '../../apps/server/src/app';
import { makeBenchRepository } from '../serve/bench-models';
import { inProcessClosedLoop } from '../serve/load';
import { arg } from '../args';
import { median } from '../median';

const rounds = Number(arg('--rounds', '5'));
const ms = Number(arg('--ms', '1500'));
const concurrency = Number(arg('--c', '16'));
const hot = Number(arg('--hot', '32'));
const model = 'mlp_batched';

async function start(cache: boolean) {
  const dir = makeBenchRepository(1, [model]);
  if (cache) {
    const file = join(dir, model, 'config.pbtxt');
    writeFileSync(file, `${readFileSync(file, 'utf8')}response_cache { enable: true }\n`);
  }
  const server = await buildApp({
    modelRepositories: [dir], httpPort: 0, metricsPort: null, host: '127.0.0.1', live: false,
    ...(cache ? { responseCache: { size: 16 * 1024 * 1024 } } : {}),
  });
  await server.listen();
  return { server, dir };
}

/** a distinct input per seed (element 0 holds the seed itself, so no two seeds share their bytes) */
const sample = (seed: number): InferPayload => {
  const data = new Float32Array(784).map((_, i) => ((i * 31 + seed * 17) % 997) / 997);
  data[0] = seed;
  return { inputs: [{ name: 'input', datatype: 'FP32', shape: [1, 784], data }] };
};
const hotInputs = Array.from({ length: hot }, (_, i) => sample(i));
let fresh = 1_000_000;

const on = await start(true);
const off = await start(false);
const rows: { onRps: number; offRps: number; onP99: number; offP99: number; onCpu: number; offCpu: number }[] = [];
try {
  const side = (s: typeof on) => {
    const rng = new Rng(54);
    return inProcessClosedLoop(() => s.server.manager.infer(model, undefined, {
      batchSize: 1, shapeKey: '', payload: rng.next() < 0.5 ? hotInputs[rng.int(0, hot - 1)] : sample(fresh++),
    }), { concurrency, durationMs: ms, warmupMs: 300 });
  };
  console.log(`${model} c=${concurrency}, half the requests one of ${hot} inputs, the rest unique; ${rounds} rounds of ${ms} ms per side`);
  for (let r = 0; r < rounds; r++) {
    const a = await side(on);
    const b = await side(off);
    rows.push({ onRps: a.req_per_s, offRps: b.req_per_s, onP99: a.p99_ms, offP99: b.p99_ms, onCpu: a.cpu_us_per_req ?? NaN, offCpu: b.cpu_us_per_req ?? NaN });
    console.log(`round ${r + 1}: on ${Math.round(a.req_per_s)} req/s p99 ${a.p99_ms.toFixed(2)} ms | off ${Math.round(b.req_per_s)} req/s p99 ${b.p99_ms.toFixed(2)} ms` +
      ` | throughput on/off ${(a.req_per_s / b.req_per_s).toFixed(2)}, p99 on/off ${(a.p99_ms / b.p99_ms).toFixed(2)}, CPU µs a request on/off ${(a.cpu_us_per_req ?? NaN).toFixed(0)}/${(b.cpu_us_per_req ?? NaN).toFixed(0)}`);
  }
  const s = on.server.manager.options.responseCache!.cache.stats();
  console.log(`cache: ${s.hits} hits / ${s.lookups} lookups (${((100 * s.hits) / Math.max(1, s.lookups)).toFixed(0)}%), ${s.entries} entries, ${s.evictions} evictions, ${(100 * s.utilization).toFixed(0)}% full`);
} finally {
  await on.server.close();
  await off.server.close();
  rmSync(on.dir, { recursive: true, force: true });
  rmSync(off.dir, { recursive: true, force: true });
}
const tp = rows.map((x) => x.onRps / x.offRps);
const p99 = rows.map((x) => x.onP99 / x.offP99);
const cpu = rows.map((x) => x.onCpu / x.offCpu);
console.log(`\nmedian over ${rows.length} rounds: throughput on/off ${median(tp).toFixed(2)} (range ${Math.min(...tp).toFixed(2)}-${Math.max(...tp).toFixed(2)}), p99 on/off ${median(p99).toFixed(2)} (range ${Math.min(...p99).toFixed(2)}-${Math.max(...p99).toFixed(2)}), CPU a request on/off ${median(cpu).toFixed(2)} (range ${Math.min(...cpu).toFixed(2)}-${Math.max(...cpu).toFixed(2)})`);
