/**
 * The KV-cache shape of a generative model, read from its config's step signature (KV_STEP_TENSORS):
 * layers = how many past_key_<l> inputs, heads and head_dim from their dims, bytes from their data type.
 * The loader of a step-scheduled model calls this, then kvBytesPerBlock and kvBudgetProblem; a config
 * that does not have the signature is refused with what is missing or inconsistent.
 */
import type { ModelConfig } from '../config/types';
import { datatypeByteSize } from '../config/datatype';
import type { KvModelShape } from './kv-bytes';
import { KV_STEP_TENSORS as N } from './step-batch';

type Tensors = ModelConfig['input'];

export function kvShapeFromConfig(config: Pick<ModelConfig, 'input' | 'output' | 'max_batch_size'>): { shape: KvModelShape } | { problem: string } {
  const inputs = new Map((config.input ?? []).map((t) => [t.name ?? '', t]));
  const outputs = new Map((config.output ?? []).map((t) => [t.name ?? '', t]));
  const problems: string[] = [];
  for (const name of [N.inputIds, N.positionIds, N.attentionMask]) {
    const t = inputs.get(name);
    if (!t) problems.push(`input '${name}' is missing`);
    else if (t.data_type !== 'TYPE_INT64') problems.push(`input '${name}' must be TYPE_INT64, not ${t.data_type}`);
  }
  if (!outputs.has(N.logits)) problems.push(`output '${N.logits}' is missing`);
  let layers = 0;
  while (inputs.has(N.pastKey(layers))) layers++;
  if (layers === 0) problems.push(`input '${N.pastKey(0)}' is missing: a step model takes its KV cache as ${N.pastKey(0)}, ${N.pastValue(0)}, ... per layer`);
  const cache: [Map<string, NonNullable<Tensors>[number]>, string, string][] = [];
  for (let l = 0; l < layers; l++) {
    cache.push([inputs, 'input', N.pastKey(l)], [inputs, 'input', N.pastValue(l)], [outputs, 'output', N.presentKey(l)], [outputs, 'output', N.presentValue(l)]);
  }
  let shape: KvModelShape | undefined;
  let first = '';
  for (const [map, kind, name] of cache) {
    const t = map.get(name);
    if (!t) {
      problems.push(`${kind} '${name}' is missing`);
      continue;
    }
    // [heads, past, head_dim] after the batch dimension (in dims when max_batch_size is 0)
    const dims = (t.dims ?? []).slice((config.max_batch_size ?? 0) > 0 ? 0 : 1);
    const bytes = datatypeByteSize(t.data_type ?? 'TYPE_INVALID');
    const isFloat = ['TYPE_FP32', 'TYPE_FP16', 'TYPE_BF16'].includes(t.data_type ?? '');
    if (dims.length !== 3 || !(dims[0] > 0) || dims[1] !== -1 || !(dims[2] > 0) || !isFloat) {
      problems.push(`${kind} '${name}' must be a float tensor of dims [heads, -1, head_dim] after the batch dimension, not ${t.data_type} [${(t.dims ?? []).join(', ')}]`);
      continue;
    }
    const here: KvModelShape = { layers, kvHeads: dims[0], headDim: dims[2], bytesPerElement: bytes };
    if (!shape) {
      shape = here;
      first = name;
    } else if (here.kvHeads !== shape.kvHeads || here.headDim !== shape.headDim || here.bytesPerElement !== shape.bytesPerElement) {
      problems.push(`${kind} '${name}' (${t.data_type} ${here.kvHeads} heads of ${here.headDim}) differs from '${first}' (${shape.kvHeads} heads of ${shape.headDim}, ${shape.bytesPerElement} bytes)`);
    }
  }
  if (problems.length > 0 || !shape) return { problem: `not a KV-cache step model: ${problems.join('; ')}` };
  return { shape };
}
