/**
 * Profiling helper for the in-process serving path (R2B): one model, one concurrency, no HTTP load.
 *   node --cpu-prof --cpu-prof-dir /tmp/prof --import tsx test/bench/serve/profile-inprocess.ts [--model mlp_batched] [--c 32] [--ms 3000] [--live true]
 */
import { mkdtempSync, mkdirSync, writeFileSync, copyFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Tensor } from '@inferscope/core';
import { DEFAULT_MODEL } from './direct-ort';
import { inProcessClosedLoop } from './load';
import { startInferScope } from './server-under-test';

const arg = (name: string, fallback: string): string => {
  const i = process.argv.indexOf(name);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
};
const model = arg('--model', 'mlp_batched');
const batching = model !== 'mlp_nobatch';
const dir = mkdtempSync(join(tmpdir(), 'inferscope-prof-'));
mkdirSync(join(dir, model, '1'), { recursive: true });
writeFileSync(
  join(dir, model, 'config.pbtxt'),
  [
    `name: "${model}"`, 'backend: "onnxruntime"', 'max_batch_size: 64',
    'input [ { name: "input" data_type: TYPE_FP32 dims: [ 784 ] } ]',
    'output [ { name: "probabilities" data_type: TYPE_FP32 dims: [ 10 ] } ]',
    batching ? 'dynamic_batching { preferred_batch_size: [ 8, 16, 32 ] max_queue_delay_microseconds: 2000 }' : '',
    'instance_group [ { count: 1 kind: KIND_CPU } ]',
    'parameters { key: "intra_op_thread_count" value: { string_value: "1" } }', '',
  ].join('\n'),
);
copyFileSync(DEFAULT_MODEL, join(dir, model, '1', 'model.onnx'));
const server = await startInferScope(dir, arg('--live', 'true') !== 'false');
const input: Tensor = { name: 'input', datatype: 'FP32', shape: [1, 784], data: new Float32Array(784).fill(0.5) };
try {
  const r = await inProcessClosedLoop(() => server.infer(model, { batchSize: 1, shapeKey: '', payload: { inputs: [input] } }), {
    concurrency: Number(arg('--c', '32')),
    durationMs: Number(arg('--ms', '3000')),
    warmupMs: 500,
  });
  console.log(`${model} c=${arg('--c', '32')}: ${Math.round(r.req_per_s)} req/s p50 ${r.p50_ms.toFixed(2)} ms p99 ${r.p99_ms.toFixed(2)} ms errors ${r.errors}`);
} finally {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}
