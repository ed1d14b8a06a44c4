/**
 * The two models every serve benchmark runs, on mlp_classifier's weights: `mlp_nobatch` (no
 * dynamic_batching) and `mlp_batched` (preferred 8/16/32, 2 ms max queue delay), one intra-op thread per
 * instance so one instance compares with one directly-run session.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Tensor } from '@inferscope/core';
import { DEFAULT_MODEL } from './direct-ort';

export type BenchModel = 'mlp_nobatch' | 'mlp_batched';

export function benchConfig(name: BenchModel, instances: number): string {
  return [
    `name: "${name}"`,
    'backend: "onnxruntime"',
    'max_batch_size: 64',
    'input [ { name: "input" data_type: TYPE_FP32 dims: [ 784 ] } ]',
    'output [ { name: "probabilities" data_type: TYPE_FP32 dims: [ 10 ] } ]',
    name === 'mlp_batched' ? 'dynamic_batching { preferred_batch_size: [ 8, 16, 32 ] max_queue_delay_microseconds: 2000 }' : '',
    `instance_group [ { count: ${instances} kind: KIND_CPU } ]`,
    'parameters { key: "intra_op_thread_count" value: { string_value: "1" } }',
    '',
  ].join('\n');
}

/** A temporary repository holding `models` (default both); the caller removes it. */
export function makeBenchRepository(instances = 1, models: BenchModel[] = ['mlp_nobatch', 'mlp_batched']): string {
  const dir = mkdtempSync(join(tmpdir(), 'inferscope-bench-'));
  for (const name of models) {
    mkdirSync(join(dir, name, '1'), { recursive: true });
    writeFileSync(join(dir, name, 'config.pbtxt'), benchConfig(name, instances));
    copyFileSync(DEFAULT_MODEL, join(dir, name, '1', 'model.onnx'));
  }
  return dir;
}

/**
 * mlp_batched rewritten to the architecture floors' batching rule ("up to 16 of whatever is queued when
 * the thread is free": in Triton's terms max_batch_size 16, no preferred sizes) and the given queue delay,
 * so a comparison with a floor batches by one rule on both sides.
 */
export function useFloorRule(repo: string, delayUs: number, rule: 'floor' | 'preferred' = 'floor'): void {
  const file = join(repo, 'mlp_batched', 'config.pbtxt');
  let config = readFileSync(file, 'utf8').replace('max_queue_delay_microseconds: 2000', `max_queue_delay_microseconds: ${delayUs}`);
  if (rule === 'floor') config = config.replace('max_batch_size: 64', 'max_batch_size: 16').replace('preferred_batch_size: [ 8, 16, 32 ] ', '');
  writeFileSync(file, config);
}

/** One sample, as every benchmark request sends it. */
export const benchInput: Tensor = {
  name: 'input',
  datatype: 'FP32',
  shape: [1, 784],
  data: new Float32Array(784).map((_, i) => (i % 255) / 255),
};
