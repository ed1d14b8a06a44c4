// The lessons' copy of the bundled models' signatures (apps/web/src/teach/bundled-signatures.ts) equals what
// the model files in model_repository declare, read as the server reads them at load.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readOnnxSignature } from '../../apps/server/src/backends/onnxruntime/onnx-signature';
import { modelSignatureOf } from '../../apps/server/src/backends/onnxruntime/autocomplete';
import { BUNDLED_SIGNATURES } from '../../apps/web/src/teach/bundled-signatures';
import { DEMO_REPO } from '../support/server';

test("the lessons' signatures are the bundled model files'", () => {
  for (const [model, signature] of Object.entries(BUNDLED_SIGNATURES)) {
    assert.deepEqual(modelSignatureOf(readOnnxSignature(join(DEMO_REPO, model, '1', 'model.onnx'))), signature, model);
  }
});
