/**
 * A second reference for the serve benchmark: onnxruntime in ONE worker thread (the server's own
 * InstanceWorker and worker.mjs), fed by this thread as fast as it can: each batch is a fresh buffer
 * (as a server's gathered batch is), one batch always queued behind the running one (as the scheduler's
 * prefetch does), nothing else on the main thread: no scheduler, no requests, no events.
 *
 * Direct onnxruntime (direct-ort.ts) is the target the issue names; this row splits the gap to it into
 * what the thread hand-off itself costs on this machine (worker / direct) and what the scheduler adds on
 * top of it (server / worker). Rows have the DirectOrtRow shape so directThroughputForMix applies.
 *
 *   node --import tsx bench/serve/worker-ort.ts [--batch 1,8,16,32] [--ms 1500]
 */
import { fileURLToPath } from 'node:url';
import { percentile } from '@inferscope/core/stats';
import { InstanceWorker } from '../../apps/server/src/backends/onnxruntime/instance-worker';
import { DEFAULT_MODEL, type DirectOrtRow } from './direct-ort';
import { arg } from '../args';

export interface WorkerOrtOptions {
  batchSizes: number[];
  durationMs?: number;
  modelFile?: string;
}

export async function measureWorkerOrt(opts: WorkerOrtOptions): Promise<DirectOrtRow[]> {
  const durationMs = opts.durationMs ?? 1500;
  const worker = new InstanceWorker('bench reference', () => undefined);
  await worker.init({
    modelFile: opts.modelFile ?? DEFAULT_MODEL,
    options: { intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential' },
    executionProviders: ['cpu'],
  });
  const row = new Float32Array(784).map((_, i) => (i % 255) / 255);
  const rows: DirectOrtRow[] = [];
  try {
    for (const batch of opts.batchSizes) {
      const times: number[] = [];
      await new Promise<void>((resolve, reject) => {
        let inFlight = 0;
        let warm = 20;
        let measuring = false;
        let last = 0;
        let end = Infinity;
        const send = (): void => {
          const data = new Float32Array(batch * 784); // fresh, as a gathered batch is
          for (let r = 0; r < batch; r++) data.set(row, r * 784);
          inFlight++;
          worker.runWithCallback([{ name: 'input', type: 'float32', dims: [batch, 784], data }], ['probabilities'], (err) => {
            inFlight--;
            if (err) return reject(err);
            const now = performance.now();
            if (!measuring && --warm <= 0) {
              measuring = true;
              end = now + durationMs;
            } else if (measuring) times.push(now - last);
            last = now;
            if (now < end) send();
            else if (inFlight === 0) resolve();
          });
        };
        send();
        send(); // one queued behind the running one, as with the scheduler's prefetch
      });
      const mean = times.reduce((a, b) => a + b, 0) / times.length;
      const sorted = [...times].sort((a, b) => a - b);
      rows.push({
        batch,
        runs: times.length,
        median_ms: sorted[Math.floor(sorted.length / 2)],
        mean_ms: mean,
        cpu_us: Number.NaN, // process CPU would mix both threads; not used for this reference
        p99_ms: percentile(sorted, 0.99),
        samples_per_s: (batch * 1000) / mean,
      });
    }
  } finally {
    await worker.close();
  }
  return rows;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const rows = await measureWorkerOrt({ batchSizes: arg('--batch', '1,8,16,32').split(',').map(Number), durationMs: Number(arg('--ms', '1500')) });
  console.log('onnxruntime in one worker thread, fed with one batch queued, intra-op 1');
  for (const r of rows) console.log(`b${r.batch}: ${Math.round(r.samples_per_s)} samples/s (mean ${r.mean_ms.toFixed(3)} ms per batch)`);
}
