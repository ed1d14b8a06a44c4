/**
 * What the bundled models' files declare (names, datatypes, shapes), for the lesson that checks a config
 * as the server does once it has read the model file. The teaching page has no model files; these are
 * what `npm run models` writes, and test/backends/bundled-signatures.test.ts reads the files and fails
 * when the two differ.
 */
import type { ModelSignature } from '@inferscope/core/config';

export const BUNDLED_SIGNATURES: Readonly<Record<string, ModelSignature>> = {
  mlp_classifier: {
    inputs: [{ name: 'input', type: 'TYPE_FP32', dims: [-1, 784] }],
    outputs: [{ name: 'probabilities', type: 'TYPE_FP32', dims: [-1, 10] }],
  },
  // the step signature (its KV cache in and out per layer): what sizes a KV block in teaching mode
  tiny_lm_generate: {
    inputs: [
      { name: 'input_ids', type: 'TYPE_INT64', dims: [-1, -1] }, { name: 'position_ids', type: 'TYPE_INT64', dims: [-1, -1] },
      { name: 'attention_mask', type: 'TYPE_INT64', dims: [-1, -1] },
      { name: 'past_key_0', type: 'TYPE_FP32', dims: [-1, 4, -1, 16] }, { name: 'past_value_0', type: 'TYPE_FP32', dims: [-1, 4, -1, 16] },
      { name: 'past_key_1', type: 'TYPE_FP32', dims: [-1, 4, -1, 16] }, { name: 'past_value_1', type: 'TYPE_FP32', dims: [-1, 4, -1, 16] },
    ],
    outputs: [
      { name: 'logits', type: 'TYPE_FP32', dims: [-1, 257] },
      { name: 'present_key_0', type: 'TYPE_FP32', dims: [-1, 4, -1, 16] }, { name: 'present_value_0', type: 'TYPE_FP32', dims: [-1, 4, -1, 16] },
      { name: 'present_key_1', type: 'TYPE_FP32', dims: [-1, 4, -1, 16] }, { name: 'present_value_1', type: 'TYPE_FP32', dims: [-1, 4, -1, 16] },
    ],
  },
};
