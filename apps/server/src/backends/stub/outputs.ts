/**
 * Checks what a stub answered against the model config before anything reaches a client: each output
 * must be one the config declares, with its datatype and its dims (plus the batch dimension, which must
 * equal the rows the request sent). A model that returns something else gets a clear error, never a
 * silently wrong answer.
 */
import type { Tensor } from '@inferscope/core';
import type { ModelConfig } from '@inferscope/core/config';
import { tritonToKServeDatatype } from '@inferscope/core/config';
import type { WireTensor } from './protocol';
import { readTensor } from './tensors';

export function readCheckedOutputs(config: ModelConfig, wire: readonly WireTensor[], body: Uint8Array, rows: number | undefined, who: string): Tensor[] {
  const model = config.name ?? 'model';
  const specs = new Map((config.output ?? []).map((o) => [o.name ?? '', o]));
  const seen = new Set<string>();
  return wire.map((w) => {
    const spec = specs.get(w.name);
    if (!spec) {
      throw new Error(`${who} returned output '${w.name}', which model '${model}' does not declare (outputs: ${[...specs.keys()].join(', ')})`);
    }
    if (seen.has(w.name)) throw new Error(`${who} returned output '${w.name}' twice`);
    seen.add(w.name);
    const t = readTensor(w, body, `output '${w.name}' of model '${model}'`);
    const expected = tritonToKServeDatatype(spec.data_type ?? 'TYPE_INVALID');
    if (t.datatype !== expected) {
      throw new Error(`${who} returned output '${w.name}' as ${t.datatype}, but model '${model}' declares ${spec.data_type} (${expected})`);
    }
    // An output with a reshape leaves the model as reshape.shape; clients see dims (Triton reshapes back).
    const declared = spec.reshape?.shape ?? spec.dims ?? [];
    const full = rows !== undefined ? [rows, ...declared] : declared;
    let ok = t.shape.length === full.length;
    for (let i = 0; ok && i < full.length; i++) ok = full[i] === -1 || full[i] === t.shape[i];
    if (!ok) {
      throw new Error(`${who} returned output '${w.name}' with shape [${t.shape.join(',')}], but model '${model}' expects [${full.join(',')}]`);
    }
    return t;
  });
}
