/**
 * torch run directly in one Python process (direct_torch.py) at given batch sizes, as rows shaped like
 * the serve bench's direct onnxruntime rows, so directThroughputForMix applies to both.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { DirectOrtRow } from '../serve/direct-ort';

export const TORCH_MODEL = fileURLToPath(new URL('../../../model_repository/mlp_classifier_torch/1/model.pt', import.meta.url));
const SCRIPT = fileURLToPath(new URL('./direct_torch.py', import.meta.url));

export function measureDirectTorch(opts: { batchSizes: number[]; durationMs?: number; python?: string; modelFile?: string; threads?: number }): DirectOrtRow[] {
  const out = execFileSync(
    opts.python ?? '/usr/bin/python3',
    [SCRIPT, opts.modelFile ?? TORCH_MODEL, opts.batchSizes.join(','), String(opts.durationMs ?? 1500), String(opts.threads ?? 1)],
    { encoding: 'utf8', maxBuffer: 1 << 20 },
  );
  return JSON.parse(out) as DirectOrtRow[];
}
