/**
 * Shared set-up for the backend tests: configs of the demo models as objects (the tests do not depend on
 * the pbtxt parser), a loader that runs the real onnxruntime backend, and onnxruntime run directly in
 * this thread as the reference.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as ort from 'onnxruntime-node';
import { EventBus, type InstanceInfo, type SchedulerRequest, type InferPayload, type Tensor } from '@inferscope/core';
import type { ModelConfig } from '@inferscope/core/config';
import { MemoryLedger } from '../../apps/server/src/memory/ledger';
import { onnxRuntimeBackend } from '../../apps/server/src/backends/onnxruntime/backend';
import type { LoadedModel } from '../../apps/server/src/backends/types';

export const REPO = fileURLToPath(new URL('../../model_repository/', import.meta.url));

export function mlpConfig(extra: Partial<ModelConfig> = {}): ModelConfig {
  return {
    name: 'mlp_classifier',
    backend: 'onnxruntime',
    max_batch_size: 64,
    input: [{ name: 'input', data_type: 'TYPE_FP32', dims: [784] }],
    output: [{ name: 'probabilities', data_type: 'TYPE_FP32', dims: [10] }],
    instance_group: [{ name: 'mlp_classifier_0', kind: 'KIND_CPU', count: 1 }],
    parameters: { intra_op_thread_count: { string_value: '1' } },
    ...extra,
  };
}

export function textConfig(extra: Partial<ModelConfig> = {}): ModelConfig {
  return {
    name: 'text_encoder',
    backend: 'onnxruntime',
    max_batch_size: 32,
    input: [{ name: 'token_ids', data_type: 'TYPE_INT64', dims: [-1] }],
    output: [{ name: 'embedding', data_type: 'TYPE_FP32', dims: [64] }],
    instance_group: [{ name: 'text_encoder_0', kind: 'KIND_CPU', count: 1 }],
    parameters: { intra_op_thread_count: { string_value: '1' } },
    ...extra,
  };
}

export interface Loaded {
  loaded: LoadedModel;
  ledger: MemoryLedger;
  bus: EventBus;
  logs: string[];
}

export async function loadModel(
  model: string,
  config: ModelConfig,
  opts: { version?: string; gpuCount?: number; budgets?: Record<string, number> } = {},
): Promise<Loaded> {
  const version = opts.version ?? '1';
  const bus = new EventBus();
  const ledger = new MemoryLedger({ bus, budgets: opts.budgets });
  const logs: string[] = [];
  const versionDir = join(REPO, model, version);
  const loaded = await onnxRuntimeBackend.load({
    model,
    version,
    versionDir,
    modelFile: join(versionDir, 'model.onnx'),
    config,
    gpuCount: opts.gpuCount ?? 0,
    log: (m) => logs.push(m),
    memory: ledger,
  });
  return { loaded, ledger, bus, logs };
}

export function instance(name: string, kind = 'KIND_CPU', device = 'cpu'): InstanceInfo {
  return { name, group: name.replace(/_\d+$/, ''), kind, device, index: 0 };
}

let seq = 0;
export function request(inputs: Tensor[], outputs?: string[]): SchedulerRequest<InferPayload> {
  return { id: `r${seq++}`, batchSize: inputs[0].shape[0], shapeKey: '', payload: { inputs, outputs } };
}

/** Deterministic float inputs: sample i of a request gets its own pattern. */
export function floats(rows: number, width: number, salt: number): Float32Array {
  const a = new Float32Array(rows * width);
  for (let i = 0; i < a.length; i++) a[i] = Math.sin(i * 0.37 + salt) * 0.5 + 0.5;
  return a;
}

/** onnxruntime run directly in this thread, one request at a time: the reference. */
export async function runDirect(file: string, feeds: Record<string, ort.Tensor>): Promise<Record<string, ort.Tensor>> {
  ort.env.logLevel = 'fatal';
  const session = await ort.InferenceSession.create(file, { intraOpNumThreads: 1 });
  try {
    return await session.run(feeds);
  } finally {
    await session.release();
  }
}

export function assertClose(actual: ArrayLike<number>, expected: ArrayLike<number>, tol = 1e-5): void {
  if (actual.length !== expected.length) throw new Error(`length ${actual.length} != ${expected.length}`);
  for (let i = 0; i < actual.length; i++) {
    if (!(Math.abs(actual[i] - expected[i]) <= tol)) {
      throw new Error(`element ${i}: ${actual[i]} differs from ${expected[i]} by more than ${tol}`);
    }
  }
}
