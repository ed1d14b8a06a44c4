/**
 * `inferscope calibrate`: measures how long each bundled model's batches take on this machine and writes
 * the table the simulator and teaching mode use (packages/core/src/sim/calibration/<model>.json).
 *
 * Method: the model is loaded by its real backend (onnxruntime: one worker thread, one session, the
 * config's intra-op threads) with one instance; batches of 1..64 samples are sent one after the other
 * through the executor, exactly as the scheduler sends them, and the median wall time per batch size is
 * recorded. So a table entry is what the server reports as compute time for that batch (hand-off to the
 * worker included), measured alone: contention between instances is the simulator's CpuHost's job.
 */
import { cpus, platform } from 'node:os';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from '../command';
import { usageError } from '../command';
import type { InferPayload, InstanceInfo, SchedulerRequest, Tensor } from '@inferscope/core';
import { loadModelConfig, formatIssue, type ModelConfig } from '@inferscope/core/config/index.ts';
import { fitLinear, type Calibration } from '@inferscope/core/sim/index.ts';
import * as ort from 'onnxruntime-node';
import { getBackend } from '../../backends/registry';
import { MemoryLedger } from '../../memory/ledger';

const SIZES = [1, 2, 4, 8, 12, 16, 24, 32, 48, 64];
const DEFAULT_OUT = fileURLToPath(new URL('../../../../../packages/core/src/sim/calibration/', import.meta.url));
const BUNDLED = ['mlp_classifier', 'cnn_classifier', 'text_encoder'];

const help = `Usage: inferscope calibrate [--model-repository DIR] [--model NAME]... [--out DIR] [--seq-len N] [--min-ms MS]

Runs each model (default: ${BUNDLED.join(', ')}) on its real backend with one instance at batch sizes
${SIZES.join(', ')} and writes the median time per batch to DIR/<model>.json (default:
packages/core/src/sim/calibration), the table \`simulate\` and teaching mode use.

Options:
  --model-repository DIR  repository to read the models from (default: model_repository)
  --model NAME            calibrate only this model (repeatable)
  --out DIR               where to write the tables
  --seq-len N             length used for variable dimensions (-1), e.g. text_encoder's tokens (default 16)
  --min-ms MS             measure each batch size for at least this long (default 300)`;

/** One request of `rows` samples with deterministic contents. */
function requestOf(config: ModelConfig, rows: number, seqLen: number, id: string): SchedulerRequest<InferPayload> {
  const inputs: Tensor[] = (config.input ?? []).map((inp) => {
    const dims = (inp.dims ?? []).map((d) => (d < 0 ? seqLen : d));
    const n = rows * dims.reduce((a, b) => a * b, 1);
    const shape = [rows, ...dims];
    if (inp.data_type === 'TYPE_INT64') return { name: inp.name ?? '', datatype: 'INT64', shape, data: BigInt64Array.from({ length: n }, (_, i) => BigInt((i * 7919) % 1000)) };
    if (inp.data_type === 'TYPE_FP32') return { name: inp.name ?? '', datatype: 'FP32', shape, data: Float32Array.from({ length: n }, (_, i) => Math.sin(i * 0.37) * 0.5 + 0.5) };
    throw new Error(`${config.name}: input ${inp.name} has ${inp.data_type}; calibrate knows FP32 and INT64`);
  });
  return { id, batchSize: rows, shapeKey: '', payload: { inputs } };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Median µs of `run` after three warm-up calls: at least 15 runs and `minMs` of measuring, at most 400 runs. */
async function timeIt(run: () => Promise<unknown>, minMs: number): Promise<{ us: number; runs: number }> {
  for (let i = 0; i < 3; i++) await run(); // warm caches and allocator
  const times: number[] = [];
  const start = performance.now();
  while (times.length < 15 || (performance.now() - start < minMs && times.length < 400)) {
    const t0 = performance.now();
    await run();
    times.push((performance.now() - t0) * 1000);
  }
  return { us: Math.round(median(times) * 10) / 10, runs: times.length };
}

const ORT_TYPE: Record<string, ort.Tensor.Type> = { FP32: 'float32', INT64: 'int64' };

/** The same batch on a session in this thread: the backend's own compute, without the hand-off to a worker. */
async function sessionTable(file: string, config: ModelConfig, seqLen: number, minMs: number): Promise<Record<string, number>> {
  ort.env.logLevel = 'fatal';
  const threads = Number(config.parameters?.intra_op_thread_count?.string_value ?? 1) || 1;
  const session = await ort.InferenceSession.create(file, { intraOpNumThreads: threads, interOpNumThreads: 1 });
  const out: Record<string, number> = {};
  try {
    for (const b of SIZES) {
      const feeds = Object.fromEntries(requestOf(config, b, seqLen, 'direct').payload.inputs.map((t) => [t.name, new ort.Tensor(ORT_TYPE[t.datatype], t.data as Float32Array, t.shape)]));
      out[String(b)] = (await timeIt(() => session.run(feeds), minMs)).us;
    }
  } finally {
    await session.release();
  }
  return out;
}

async function calibrateModel(repo: string, name: string, seqLen: number, minMs: number): Promise<Calibration> {
  const dir = join(repo, name);
  const loaded = loadModelConfig(readFileSync(join(dir, 'config.pbtxt'), 'utf8'), { modelName: name, gpuCount: 0 });
  if (!loaded.config) throw new Error(`${name}: ${formatIssue(loaded.error!)}`);
  // one instance, batches up to the largest size measured
  const config: ModelConfig = { ...loaded.config, max_batch_size: Math.max(loaded.config.max_batch_size ?? 0, SIZES[SIZES.length - 1]), instance_group: [{ name: `${name}_0`, kind: 'KIND_CPU', count: 1 }] };
  const backend = getBackend(config);
  const versionDir = join(dir, '1');
  const model = await backend.load({
    model: name, version: '1', versionDir, modelFile: join(versionDir, backend.defaultModelFilename), config, gpuCount: 0,
    log: () => undefined, memory: new MemoryLedger({}),
  });
  const info: InstanceInfo = { name: `${name}_0_0`, group: `${name}_0`, kind: 'KIND_CPU', device: 'cpu', index: 0 };
  const table: Record<string, number> = {};
  try {
    await model.executor.startInstance?.(info);
    for (const b of SIZES) {
      const req = requestOf(config, b, seqLen, `cal-${b}`);
      const m = await timeIt(() => model.executor.execute(info, [req]), minMs);
      table[String(b)] = m.us;
      console.error(`  ${name} batch ${String(b).padStart(2)}: ${m.us} µs (median of ${m.runs})`);
    }
  } finally {
    await model.unload();
  }
  const session = backend.name === 'onnxruntime' ? await sessionTable(join(versionDir, backend.defaultModelFilename), config, seqLen, minMs) : undefined;
  const threads = config.parameters?.intra_op_thread_count?.string_value ?? 'default';
  const variable = (config.input ?? []).some((i) => (i.dims ?? []).some((d) => d < 0));
  return {
    format: 'inferscope-calibration', model: name, backend: config.backend ?? backend.name, kind: 'KIND_CPU',
    method: `one instance, intra_op_thread_count ${threads}, batches sent one after the other through the executor, median wall time${variable ? `, variable dims = ${seqLen}` : ''}`,
    host: { cpus: cpus().length, platform: `${platform()} ${cpus()[0]?.model ?? ''}`.trim(), runtime: `node ${process.versions.node}` },
    measured_at: new Date().toISOString().slice(0, 10),
    table_us: table,
    fit: fitLinear(table),
    ...(session ? { session_us: session } : {}),
  };
}

const command: Command = {
  name: ['calibrate'],
  summary: 'measure the bundled models\' batch times on this machine and write the simulator\'s cost tables',
  help,
  async run(argv) {
    let repo = 'model_repository';
    let out = DEFAULT_OUT;
    let seqLen = 16;
    let minMs = 300;
    const only: string[] = [];
    for (let i = 0; i < argv.length; i++) {
      const a = argv[i];
      const v = argv[i + 1];
      if (!['--model-repository', '--model', '--out', '--seq-len', '--min-ms'].includes(a)) return usageError(`unknown option: ${a}`, help);
      if (v === undefined || v.startsWith('--')) return usageError(`${a} needs a value`, help);
      i++;
      if (a === '--model-repository') repo = v;
      else if (a === '--model') only.push(v);
      else if (a === '--out') out = v;
      else {
        const n = Number(v);
        if (!Number.isInteger(n) || n < 1) return usageError(`${a} must be an integer >= 1, got "${v}"`, help);
        if (a === '--seq-len') seqLen = n;
        else minMs = n;
      }
    }
    mkdirSync(out, { recursive: true });
    for (const name of only.length ? only : BUNDLED) {
      try {
        const cal = await calibrateModel(repo, name, seqLen, minMs);
        const file = join(out, `${name}.json`);
        writeFileSync(file, JSON.stringify(cal, null, 2) + '\n');
        console.log(`${file}: fixed ${cal.fit.fixed_us} µs + ${cal.fit.per_item_us} µs per sample (batch 1 ${cal.table_us['1']} µs, batch 64 ${cal.table_us['64']} µs)`);
      } catch (err) {
        console.error(`calibrate: ${name}: ${(err as Error).message}`);
        return 1;
      }
    }
    return 0;
  },
};

export default command;
