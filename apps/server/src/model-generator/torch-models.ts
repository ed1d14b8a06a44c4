/**
 * The TorchScript twin of mlp_classifier (model_repository/mlp_classifier_torch): the same seeded
 * weights as mlp_classifier version 1, written as raw float32 files to a temp folder and turned into
 * model.pt by apps/server/python/tools/export_mlp_torchscript.py with the stub interpreter's torch.
 * torch.jit.save is not byte-identical between runs, so tests compare outputs, never bytes.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MLP_SIZES, mlpWeights } from './models';
import { MLP_TORCH_CONFIG } from './torch-config';

export const TORCH_MODEL_NAME = 'mlp_classifier_torch';
/** mlp_classifier version 1's seed: the two models must agree to 1e-5 */
export const TORCH_MLP_SEED = 1001;
const EXPORT_SCRIPT = fileURLToPath(new URL('../../python/tools/export_mlp_torchscript.py', import.meta.url));

/** Why torch cannot be used by `python`, or null when it can. */
export function torchUnavailableReason(python: string): string | null {
  try {
    execFileSync(python, ['-c', 'import torch'], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 60_000 });
    return null;
  } catch (err) {
    const e = err as { stderr?: Buffer; message: string };
    const last = e.stderr?.toString().trim().split('\n').at(-1);
    return last || e.message;
  }
}

/** Writes <outDir>/mlp_classifier_torch/{config.pbtxt,1/model.pt}; returns the paths written. */
export function generateTorchModel(outDir: string, python: string): string[] {
  const modelDir = join(outDir, TORCH_MODEL_NAME);
  mkdirSync(join(modelDir, '1'), { recursive: true });
  const weights = mkdtempSync(join(tmpdir(), 'inferscope-torch-weights-'));
  try {
    for (const l of mlpWeights(TORCH_MLP_SEED)) {
      writeFileSync(join(weights, `${l.name}.weight.f32`), new Uint8Array(l.weight.buffer, l.weight.byteOffset, l.weight.byteLength));
      writeFileSync(join(weights, `${l.name}.bias.f32`), new Uint8Array(l.bias.buffer, l.bias.byteOffset, l.bias.byteLength));
    }
    const modelFile = join(modelDir, '1', 'model.pt');
    execFileSync(python, [EXPORT_SCRIPT, weights, modelFile, MLP_SIZES.join(',')], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 120_000 });
    const configFile = join(modelDir, 'config.pbtxt');
    writeFileSync(configFile, MLP_TORCH_CONFIG);
    return [configFile, modelFile];
  } finally {
    rmSync(weights, { recursive: true, force: true });
  }
}
