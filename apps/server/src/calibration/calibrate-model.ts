/**
 * One model's calibration: its real backend with one instance, batches of each size sent one after the
 * other through the executor (measure-batches.ts), fitted by core's fitBatchRecords; for onnxruntime also
 * the session alone in this thread. `inferscope calibrate` writes the result; the fidelity benchmark
 * measures a same-run baseline with it, and its host figures through `whileLoaded`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { InstanceInfo } from '@inferscope/core';
import { loadModelConfig, formatIssue, numericParameter, type ModelConfig } from '@inferscope/core/config';
import type { Executor, InferPayload, InferResult } from '@inferscope/core';
import { fitBatchRecords, type BatchRecord, type Calibration } from '@inferscope/core/sim';
import * as ort from 'onnxruntime-node';
import { getBackend } from '../backends/registry';
import { MemoryLedger } from '../memory/ledger';
import { CALIBRATION_SIZES, measureBatchRecords, measureHeldBatches, measureIdlePenalty, median, requestOf, timeRuns } from './measure-batches';
import { torchSessionTable } from './torch-session';
import { calibrationHost } from './host';

/** The model as calibrateModel has it loaded: one started instance of its real backend. */
export interface LoadedModel {
  executor: Executor<InferPayload, InferResult>;
  info: InstanceInfo;
  config: ModelConfig;
}

export interface CalibrateOptions {
  seqLen: number;
  minMs: number;
  sizes?: readonly number[];
  /** also time the backend's own run alone (session_us; default true) */
  session?: boolean;
  /**
   * Measure every size this many times, one round over all sizes after the other, and fit the records of
   * all rounds together (default 1): on a shared machine a burst of other work then spoils a third of a
   * size's runs, not all of them, and the median stays put.
   */
  rounds?: number;
  /** progress lines (stderr in the command) */
  log?: (line: string) => void;
  /** more measurements while the model is loaded, after the table's (the fidelity bench's host figures) */
  whileLoaded?: (m: LoadedModel) => Promise<void>;
}

const medianUs = (xs: number[]) => Math.round(median(xs) * 10) / 10;

const ORT_TYPE: Record<string, ort.Tensor.Type> = { FP32: 'float32', INT64: 'int64' };

/** The same batch on a session in this thread: the backend's own compute, without the hand-off to a worker. */
async function sessionTable(file: string, config: ModelConfig, seqLen: number, minMs: number, sizes: readonly number[], rounds: number): Promise<Record<string, number>> {
  ort.env.logLevel = 'fatal';
  const threads = numericParameter(config, 'intra_op_thread_count') || 1;
  const session = await ort.InferenceSession.create(file, { intraOpNumThreads: threads, interOpNumThreads: 1 });
  const records: BatchRecord[] = [];
  try {
    for (let r = 0; r < rounds; r++) {
      for (const b of sizes) {
        const feeds = Object.fromEntries(requestOf(config, b, seqLen, 'direct').payload.inputs.map((t) => [t.name, new ort.Tensor(ORT_TYPE[t.datatype], t.data as Float32Array, t.shape)]));
        for (const us of await timeRuns(() => session.run(feeds), minMs)) records.push({ size: b, us });
      }
    }
  } finally {
    await session.release();
  }
  return fitBatchRecords(records, 1).table_us;
}

/** torch's table, `rounds` times: the median of each size's medians */
async function torchTable(file: string, config: ModelConfig, sizes: readonly number[], minMs: number, rounds: number): Promise<Record<string, number>> {
  const runs: Record<string, number>[] = [];
  for (let r = 0; r < rounds; r++) runs.push(await torchSessionTable(file, config, sizes, minMs));
  return Object.fromEntries(sizes.map((b) => [String(b), medianUs(runs.map((t) => t[String(b)]))]));
}

export async function calibrateModel(repo: string, name: string, o: CalibrateOptions): Promise<Calibration> {
  const { seqLen, minMs } = o;
  const rounds = Math.max(1, Math.floor(o.rounds ?? 1));
  const sizes = o.sizes ?? CALIBRATION_SIZES;
  const dir = join(repo, name);
  const loaded = loadModelConfig(readFileSync(join(dir, 'config.pbtxt'), 'utf8'), { modelName: name, gpuCount: 0 });
  if (!loaded.config) throw new Error(`${name}: ${formatIssue(loaded.error!)}`);
  // one instance, batches up to the largest size measured
  const config: ModelConfig = { ...loaded.config, max_batch_size: Math.max(loaded.config.max_batch_size ?? 0, sizes[sizes.length - 1]), instance_group: [{ name: `${name}_0`, kind: 'KIND_CPU', count: 1 }] };
  const backend = getBackend(config);
  const versionDir = join(dir, '1');
  const model = await backend.load({
    model: name, version: '1', versionDir, modelFile: join(versionDir, backend.defaultModelFilename), config, gpuCount: 0,
    log: () => undefined, memory: new MemoryLedger({}),
  });
  const info: InstanceInfo = { name: `${name}_0_0`, group: `${name}_0`, kind: 'KIND_CPU', device: 'cpu', index: 0 };
  let records: BatchRecord[];
  let idle: Record<string, number>;
  const heldIntervals = new Map<number, number[]>();
  try {
    await model.executor.startInstance?.(info);
    records = [];
    for (let r = 0; r < rounds; r++) {
      records.push(...await measureBatchRecords(model.executor, info, config, {
        minMs, seqLen, sizes,
        onSize: (b, runs) => o.log?.(`  ${name} batch ${String(b).padStart(2)}: ${medianUs(runs)} µs (median of ${runs.length}${rounds > 1 ? `, round ${r + 1} of ${rounds}` : ''})`),
      }));
      await measureHeldBatches(model.executor, info, config, { minMs, seqLen, sizes }, heldIntervals);
    }
    o.log?.(`  ${name} held behind a running batch (two in flight), µs per batch: ${sizes.map((b) => `${b}: ${medianUs(heldIntervals.get(b) ?? [])}`).join(', ')}`);
    idle = await measureIdlePenalty(model.executor, info, config, seqLen);
    o.log?.(`  ${name} after idle (µs idle: extra µs): ${JSON.stringify(idle)}`);
    await o.whileLoaded?.({ executor: model.executor, info, config });
  } finally {
    await model.unload();
  }
  const file = join(versionDir, backend.defaultModelFilename);
  const session = o.session === false ? undefined : backend.name === 'onnxruntime' ? await sessionTable(file, config, seqLen, minMs, sizes, rounds)
    : backend.name === 'pytorch' ? await torchTable(file, config, sizes, minMs, rounds) : undefined;
  const fitted = fitBatchRecords(records, 1);
  // two medians of a noisy host: a held batch is never slower than one sent on its own
  const held = Object.fromEntries(Object.entries(fitted.table_us).filter(([b]) => heldIntervals.get(Number(b))?.length).map(([b, us]) => [b, Math.min(us, medianUs(heldIntervals.get(Number(b))!))]));
  const p = config.parameters ?? {};
  const threads = (p.intra_op_thread_count ?? p.INTRA_OP_THREAD_COUNT)?.string_value ?? 'default';
  const variable = (config.input ?? []).some((i) => (i.dims ?? []).some((d) => d < 0));
  const how = `${rounds > 1 ? `${rounds} rounds over the sizes, ` : ''}median wall time`;
  return {
    format: 'inferscope-calibration', model: name, backend: config.backend ?? backend.name, kind: 'KIND_CPU',
    method: `one instance, intra_op_thread_count ${threads}, batches sent one after the other through the executor, ${how}${variable ? `, variable dims = ${seqLen}` : ''}`,
    host: calibrationHost(),
    measured_at: new Date().toISOString().slice(0, 10),
    table_us: fitted.table_us,
    fit: fitted.fit,
    ...(Object.keys(held).length ? { held_us: held } : {}),
    ...(session ? { session_us: session } : {}),
    spread: fitted.spread,
    ...(fitted.interruptions ? { interruptions: fitted.interruptions } : {}),
    idle_penalty_us: idle,
    source: 'calibrate',
  };
}
