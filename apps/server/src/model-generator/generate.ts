/**
 * Writes the demo model repository: <out>/<model>/config.pbtxt and <out>/<model>/<version>/model.onnx.
 * Same code, same seeds -> byte-identical files (a test regenerates into a temp dir and compares).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildCnnClassifier, buildMlpClassifier, buildTextEncoder } from './models';
import { CNN_CONFIG, MLP_CONFIG, TEXT_CONFIG } from './configs';
import { buildTinyLm } from './tiny-lm';
import { TINY_LM_CONFIG } from './tiny-lm-config';
import { ACCUMULATOR_CONFIG, buildAccumulator } from './accumulator';
import { TINY_LM_GENERATE_CONFIG } from './tiny-lm-generate-config';

export interface GeneratedModel {
  name: string;
  config: string;
  /** version folder name -> ONNX bytes */
  versions: Record<string, () => Uint8Array>;
}

export const DEMO_MODELS: GeneratedModel[] = [
  {
    name: 'mlp_classifier',
    config: MLP_CONFIG,
    versions: { '1': () => buildMlpClassifier(1001), '2': () => buildMlpClassifier(1002) },
  },
  { name: 'cnn_classifier', config: CNN_CONFIG, versions: { '1': () => buildCnnClassifier(2001) } },
  { name: 'text_encoder', config: TEXT_CONFIG, versions: { '1': () => buildTextEncoder(3001) } },
  { name: 'tiny_lm', config: TINY_LM_CONFIG, versions: { '1': () => buildTinyLm(4001) } },
  { name: 'accumulator', config: ACCUMULATOR_CONFIG, versions: { '1': () => buildAccumulator() } },
  // the same file served by continuous batching (sequence_batching { iterative_sequence: true })
  { name: 'tiny_lm_generate', config: TINY_LM_GENERATE_CONFIG, versions: { '1': () => buildTinyLm(4001) } },
];

/** Writes every demo model (or only those named) under `outDir`; returns the paths written. */
export function generateRepository(outDir: string, only?: readonly string[]): string[] {
  const written: string[] = [];
  for (const m of DEMO_MODELS) {
    if (only && only.length > 0 && !only.includes(m.name)) continue;
    const modelDir = join(outDir, m.name);
    mkdirSync(modelDir, { recursive: true });
    const configPath = join(modelDir, 'config.pbtxt');
    writeFileSync(configPath, m.config);
    written.push(configPath);
    for (const [version, build] of Object.entries(m.versions)) {
      const dir = join(modelDir, version);
      mkdirSync(dir, { recursive: true });
      const file = join(dir, 'model.onnx');
      writeFileSync(file, build());
      written.push(file);
    }
  }
  return written;
}
