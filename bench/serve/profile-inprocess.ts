/**
 * Profiling helper for the in-process serving path: one model, one concurrency, no HTTP load.
 *   node --cpu-prof --cpu-prof-dir /tmp/prof --import tsx bench/serve/profile-inprocess.ts [--model mlp_batched] [--c 32] [--ms 3000] [--live true]
 */
import { rmSync } from 'node:fs';
import { benchInput, makeBenchRepository, type BenchModel } from './bench-models';
import { inProcessClosedLoop } from './load';
import { startInferScope } from './server-under-test';
import { arg } from '../args';

const model = arg('--model', 'mlp_batched') as BenchModel;
const dir = makeBenchRepository(1, [model]);
const server = await startInferScope(dir, arg('--live', 'true') !== 'false');
try {
  const r = await inProcessClosedLoop(() => server.infer(model, { batchSize: 1, shapeKey: '', payload: { inputs: [benchInput] } }), {
    concurrency: Number(arg('--c', '32')),
    durationMs: Number(arg('--ms', '3000')),
    warmupMs: 500,
  });
  console.log(`${model} c=${arg('--c', '32')}: ${Math.round(r.req_per_s)} req/s p50 ${r.p50_ms.toFixed(2)} ms p99 ${r.p99_ms.toFixed(2)} ms errors ${r.errors}`);
} finally {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}
