/**
 * What one inference request costs in memory while it runs, estimated from its decoded tensors before it
 * is queued: its inputs, its outputs and the model's intermediates. A request is refused up front when
 * that passes what the memory budget leaves free (--memory-budget; the instances' reservations are
 * already taken from it), and otherwise charged to --max-inflight-bytes beside its body, so many long
 * sequences at once are bounded as large bodies are (infer/run-inference.ts does both).
 *
 * Why: the body limit bounds a request's bytes, not what the model makes of them. A 2,000,000-token
 * request to text_encoder is 16 MB of INT64 ids, but its Gather makes a 64-float row per token: 512 MB.
 *
 * Intermediates: a model may state them per element of its inputs with the config parameter
 * `activation_bytes_per_input_element` (text_encoder: 256, its 64-float embedding row per token id);
 * otherwise they are modelled as the instance estimate models them (memory/estimate.ts): ACTIVATION_FACTOR
 * times the bytes in and out.
 */
import type { Tensor } from '@inferscope/core';
import type { ModelConfig } from '@inferscope/core/config';
import { ACTIVATION_PARAMETER, datatypeByteSize, numericParameter } from '@inferscope/core/config';
import { ACTIVATION_FACTOR } from './estimate';

export { ACTIVATION_PARAMETER };

export interface RequestCost {
  inputs: number;
  outputs: number;
  intermediates: number;
  total: number;
}

function tensorBytes(t: Tensor): { bytes: number; elements: number } {
  const elements = t.shape.reduce((a, b) => a * b, 1);
  if (Array.isArray(t.data)) return { bytes: (t.data as Uint8Array[]).reduce((a, s) => a + s.byteLength + 4, 0), elements };
  return { bytes: (t.data as ArrayBufferView).byteLength, elements };
}

/** The stated intermediates per input element, or undefined (absent or 0; a bad value refused the config at load). */
function statedActivation(config: ModelConfig): number | undefined {
  return numericParameter(config, ACTIVATION_PARAMETER) || undefined;
}

export function requestMemoryCost(config: ModelConfig, inputs: readonly Tensor[], batchSize: number): RequestCost {
  let inBytes = 0;
  let inElements = 0;
  for (const t of inputs) {
    const { bytes, elements } = tensorBytes(t);
    inBytes += bytes;
    inElements += elements;
  }
  // fixed output dims only: a variable output is sized by the model, unknown here
  let outBytes = 0;
  for (const o of config.output ?? []) {
    const dims = o.dims ?? [];
    if (dims.some((d) => d < 0)) continue;
    outBytes += dims.reduce((a, d) => a * d, 1) * (datatypeByteSize(o.data_type ?? 'TYPE_INVALID') || 64) * Math.max(1, batchSize);
  }
  const stated = statedActivation(config);
  const intermediates = stated !== undefined ? stated * inElements : (inBytes + outBytes) * ACTIVATION_FACTOR;
  return { inputs: inBytes, outputs: outBytes, intermediates, total: inBytes + outBytes + intermediates };
}
