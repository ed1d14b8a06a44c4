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
};
