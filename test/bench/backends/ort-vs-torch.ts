/**
 * The same MLP weights on both frameworks, each called directly (onnxruntime-node in this thread, torch in
 * one Python process), one intra-op thread, batch 1..64: samples/s per batch size and the ratio.
 *
 *   node --import tsx test/bench/backends/ort-vs-torch.ts [--batch 1,2,4,8,16,32,64] [--ms 1500]
 */
import { measureDirectOrt } from '../serve/direct-ort';
import { arg } from '../args';
import { measureDirectTorch } from './direct-torch';

const batchSizes = arg('--batch', '1,2,4,8,16,32,64').split(',').map(Number);
const ms = Number(arg('--ms', '1500'));
const ort = await measureDirectOrt({ batchSizes, durationMs: ms });
const torch = measureDirectTorch({ batchSizes, durationMs: ms });
console.log('| batch | onnxruntime ms | onnxruntime samples/s | torch ms | torch samples/s | ort / torch |');
console.log('|---|---|---|---|---|---|');
for (const b of batchSizes) {
  const o = ort.find((r) => r.batch === b)!;
  const t = torch.find((r) => r.batch === b)!;
  console.log(`| ${b} | ${o.mean_ms.toFixed(3)} | ${o.samples_per_s.toFixed(0)} | ${t.mean_ms.toFixed(3)} | ${t.samples_per_s.toFixed(0)} | ${(o.samples_per_s / t.samples_per_s).toFixed(2)} |`);
}
