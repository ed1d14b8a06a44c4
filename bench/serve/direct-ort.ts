/**
 * The baseline of the serve benchmark: mlp_classifier (or any model) run directly with onnxruntime-node
 * in this process, one session, no scheduler, no worker, no HTTP. Whatever the server adds on top of
 * this is its overhead.
 *
 *   import { measureDirectOrt, directThroughputForMix } from './direct-ort';
 *   const table = await measureDirectOrt({ batchSizes: [1, 8, 32] });
 *   const samplesPerSec = directThroughputForMix(table, { 8: 120, 32: 40 }); // the batch sizes the server formed
 *
 * Run alone (prints a table, ratios against batch 1 measured in the same run):
 *   node --import tsx bench/serve/direct-ort.ts [--batch 1,8,16,32,64] [--ms 1500] [--threads 1]
 */
import { fileURLToPath } from 'node:url';
import * as ort from 'onnxruntime-node';
import { arg } from '../args';
import { percentile } from '@inferscope/core/stats';

export const DEFAULT_MODEL = fileURLToPath(new URL('../../model_repository/mlp_classifier/1/model.onnx', import.meta.url));

export interface DirectOrtOptions {
  modelFile?: string;
  inputName?: string;
  /** per-sample input shape */
  sampleShape?: number[];
  batchSizes: number[];
  /** time spent measuring each batch size (after warmup) */
  durationMs?: number;
  intraOpThreads?: number;
}

export interface DirectOrtRow {
  batch: number;
  runs: number;
  median_ms: number;
  /** total time / runs: what throughput is made of (slow runs count too, as they do for a server) */
  mean_ms: number;
  /** process CPU time per run (µs): with intra-op 1 about the run itself */
  cpu_us: number;
  p99_ms: number;
  samples_per_s: number;
}

const quantile = percentile; // core's nearest rank

export async function measureDirectOrt(opts: DirectOrtOptions): Promise<DirectOrtRow[]> {
  ort.env.logLevel = 'fatal';
  const file = opts.modelFile ?? DEFAULT_MODEL;
  const inputName = opts.inputName ?? 'input';
  const sample = opts.sampleShape ?? [784];
  const perSample = sample.reduce((a, b) => a * b, 1);
  const durationMs = opts.durationMs ?? 1500;
  const session = await ort.InferenceSession.create(file, {
    intraOpNumThreads: opts.intraOpThreads ?? 1,
    interOpNumThreads: 1,
    executionMode: 'sequential',
  });
  const rows: DirectOrtRow[] = [];
  try {
    for (const batch of opts.batchSizes) {
      const data = new Float32Array(batch * perSample);
      for (let i = 0; i < data.length; i++) data[i] = (i % 255) / 255;
      const feeds = { [inputName]: new ort.Tensor('float32', data, [batch, ...sample]) };
      for (let i = 0; i < 20; i++) await session.run(feeds); // warm the arena and caches
      const times: number[] = [];
      const cpu0 = process.cpuUsage();
      const end = performance.now() + durationMs;
      while (performance.now() < end) {
        const t0 = performance.now();
        await session.run(feeds);
        times.push(performance.now() - t0);
      }
      const cpu = process.cpuUsage(cpu0);
      const mean = times.reduce((a, b) => a + b, 0) / times.length;
      times.sort((a, b) => a - b);
      rows.push({
        batch,
        runs: times.length,
        median_ms: quantile(times, 0.5),
        mean_ms: mean,
        cpu_us: (cpu.user + cpu.system) / times.length,
        p99_ms: quantile(times, 0.99),
        samples_per_s: (batch * 1000) / mean,
      });
    }
  } finally {
    await session.release();
  }
  return rows;
}

/** Per batch size, the faster of two measurements (a stricter baseline on a machine whose load moves). */
export function fasterOf(a: DirectOrtRow[], b: DirectOrtRow[]): DirectOrtRow[] {
  return a.map((r) => {
    const other = b.find((x) => x.batch === r.batch);
    if (!other) return r;
    const faster = other.mean_ms < r.mean_ms ? other : r;
    return { ...faster, cpu_us: Math.min(r.cpu_us, other.cpu_us) };
  });
}

/**
 * Samples per second one session would reach running exactly the batches the server formed:
 * total samples / total mean run time (the mean, not the median: a server's throughput pays for slow runs
 * too, so a median baseline would flatter the direct path). `histogram` maps batch size -> number of batches; sizes not
 * measured are interpolated linearly between the nearest measured sizes.
 */
export function directThroughputForMix(rows: DirectOrtRow[], histogram: Record<string | number, number>): number {
  const sorted = [...rows].sort((a, b) => a.batch - b.batch);
  const timeFor = (b: number): number => {
    const exact = sorted.find((r) => r.batch === b);
    if (exact) return exact.mean_ms;
    const lo = [...sorted].reverse().find((r) => r.batch < b) ?? sorted[0];
    const hi = sorted.find((r) => r.batch > b) ?? sorted[sorted.length - 1];
    if (lo === hi) return (lo.mean_ms * b) / lo.batch;
    return lo.mean_ms + ((hi.mean_ms - lo.mean_ms) * (b - lo.batch)) / (hi.batch - lo.batch);
  };
  let samples = 0;
  let ms = 0;
  for (const [size, count] of Object.entries(histogram)) {
    const b = Number(size);
    samples += b * count;
    ms += timeFor(b) * count;
  }
  return ms === 0 ? 0 : (samples * 1000) / ms;
}

/** CPU µs per sample one session spends running exactly the batches the server formed. */
export function directCpuPerSampleForMix(rows: DirectOrtRow[], histogram: Record<string | number, number>): number {
  let samples = 0;
  let us = 0;
  for (const [size, count] of Object.entries(histogram)) {
    const b = Number(size);
    const near = [...rows].sort((x, y) => Math.abs(x.batch - b) - Math.abs(y.batch - b))[0];
    samples += b * count;
    us += ((near.cpu_us * b) / near.batch) * count;
  }
  return samples === 0 ? 0 : us / samples;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const batchSizes = arg('--batch', '1,8,16,32,64').split(',').map(Number);
  const rows = await measureDirectOrt({
    batchSizes,
    durationMs: Number(arg('--ms', '1500')),
    intraOpThreads: Number(arg('--threads', '1')),
  });
  const base = rows[0];
  console.log(`direct onnxruntime, ${DEFAULT_MODEL.split('/').slice(-3).join('/')}, one session, intra-op ${arg('--threads', '1')}`);
  console.log('batch | runs  | median ms | mean ms | p99 ms | samples/s | vs batch ' + base.batch);
  for (const r of rows) {
    console.log(
      `${String(r.batch).padStart(5)} | ${String(r.runs).padStart(5)} | ${r.median_ms.toFixed(3).padStart(9)} | ${r.mean_ms.toFixed(3).padStart(7)} | ${r.p99_ms.toFixed(3).padStart(6)} | ${Math.round(r.samples_per_s).toString().padStart(9)} | ${(r.samples_per_s / base.samples_per_s).toFixed(1)}x`,
    );
  }
}
