/**
 * model_warmup samples as batches ready for a worker. Triton runs them on each instance before the
 * model counts as ready; we do the same inside instance start-up.
 * - zero_data: zeros; random_data: uniform floats in [0, 1), integers in [0, 16), booleans 0/1 (small
 *   integers so that index-like inputs such as token ids stay valid); input_data_file: raw little-endian
 *   bytes from <model dir>/warmup/<file>, as Triton reads them.
 */
import { join } from 'node:path';
import type { ModelConfig } from '@inferscope/core/config';
import { tritonToKServeDatatype } from '@inferscope/core/config';
import { allocateData, elementCount, isNumericDatatype, toOrtType } from '@inferscope/core/tensor';
import type { WorkerFeed } from './instance-worker';
import { READ_LIMITS, readRegularFileSync } from '../../repository/safe-read';

export interface WarmupBatch {
  name: string;
  count: number;
  feeds: () => WorkerFeed[];
}

function fillRandom(data: ArrayBufferView, datatype: string, seed: number): void {
  // A tiny LCG: warmup data only has to be plausible and repeatable, not good randomness.
  let s = seed >>> 0 || 1;
  const next = (): number => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 4294967296);
  const a = data as unknown as { length: number; [i: number]: number | bigint };
  for (let i = 0; i < a.length; i++) {
    if (datatype === 'FP32' || datatype === 'FP64') a[i] = next();
    else if (datatype === 'INT64' || datatype === 'UINT64') a[i] = BigInt(Math.floor(next() * 16));
    else if (datatype === 'BOOL') a[i] = next() < 0.5 ? 0 : 1;
    else if (datatype === 'FP16') a[i] = 0x3800; // 0.5 as IEEE half: random bits could be NaN
    else a[i] = Math.floor(next() * 16);
  }
}

export function warmupBatches(config: ModelConfig, modelDir: string): WarmupBatch[] {
  const batching = (config.max_batch_size ?? 0) > 0;
  return (config.model_warmup ?? []).map((w, wi) => {
    const name = w.name || `warmup_${wi}`;
    const batch = Math.max(1, w.batch_size ?? 1);
    const feeds = (): WorkerFeed[] =>
      Object.entries(w.inputs ?? {}).map(([input, spec]) => {
        const datatype = tritonToKServeDatatype(spec.data_type ?? 'TYPE_INVALID');
        if (!datatype || !isNumericDatatype(datatype)) {
          throw new Error(`warmup '${name}' of model '${config.name}': input '${input}' has datatype ${spec.data_type}, which the onnxruntime backend cannot warm up`);
        }
        const dims = spec.dims ?? [];
        if (dims.some((d) => d < 0)) {
          throw new Error(`warmup '${name}' of model '${config.name}': input '${input}' needs fixed dims, got [${dims.join(',')}]`);
        }
        const shape = batching ? [batch, ...dims] : [...dims];
        const data = allocateData(datatype, elementCount(shape));
        if (spec.input_data_file) {
          const bytes = readRegularFileSync(join(modelDir, 'warmup', spec.input_data_file), READ_LIMITS.warmup);
          const target = new Uint8Array(data.buffer);
          if (bytes.length < target.length) {
            throw new Error(`warmup '${name}': file '${spec.input_data_file}' has ${bytes.length} bytes, input '${input}' needs ${target.length}`);
          }
          target.set(bytes.subarray(0, target.length));
        } else if (spec.random_data) {
          fillRandom(data, datatype, wi * 7919 + input.length);
        }
        return { name: input, type: toOrtType(datatype), dims: shape, data };
      });
    return { name, count: Math.max(1, w.count ?? 1), feeds };
  });
}
