/**
 * The same MLP weights on both frameworks, each called directly (onnxruntime-node in this thread, torch in
 * one Python process kept loaded), one intra-op thread, batch 1..64: samples/s per batch size and the
 * ratio. The two are measured alternately, batch size by batch size, `--reps` times; each keeps its
 * fastest run (a shared machine only ever slows a measurement down).
 *
 *   node --import tsx bench/backends/ort-vs-torch.ts [--batch 1,2,4,8,16,32,64] [--ms 500] [--reps 3]
 */
import { measureDirectOrt, type DirectOrtRow } from '../serve/direct-ort';
import { arg } from '../args';
import { DirectTorch } from './direct-torch';

const batchSizes = arg('--batch', '1,2,4,8,16,32,64').split(',').map(Number);
const ms = Number(arg('--ms', '500'));
const reps = Number(arg('--reps', '3'));
const torch = new DirectTorch();
await torch.ready;
const best = { ort: new Map<number, DirectOrtRow>(), torch: new Map<number, DirectOrtRow>() };
const keep = (table: Map<number, DirectOrtRow>, row: DirectOrtRow): void => {
  const prev = table.get(row.batch);
  if (!prev || row.mean_ms < prev.mean_ms) table.set(row.batch, row);
};
try {
  for (let rep = 0; rep < reps; rep++) {
    for (const b of batchSizes) {
      keep(best.ort, (await measureDirectOrt({ batchSizes: [b], durationMs: ms }))[0]);
      keep(best.torch, (await torch.measure([b], ms))[0]);
    }
  }
} finally {
  torch.close();
}
console.log(`| batch | onnxruntime ms | onnxruntime samples/s | torch ms | torch samples/s | ort / torch |`);
console.log('|---|---|---|---|---|---|');
for (const b of batchSizes) {
  const o = best.ort.get(b)!;
  const t = best.torch.get(b)!;
  console.log(`| ${b} | ${o.mean_ms.toFixed(3)} | ${o.samples_per_s.toFixed(0)} | ${t.mean_ms.toFixed(3)} | ${t.samples_per_s.toFixed(0)} | ${(o.samples_per_s / t.samples_per_s).toFixed(2)} |`);
}
