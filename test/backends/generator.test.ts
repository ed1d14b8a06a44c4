import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { generateRepository } from '../../apps/server/src/model-generator/generate';
import { parseOnnxSignature } from '../../apps/server/src/backends/onnxruntime/onnx-signature';
import { REPO } from './fixtures';

test('regenerating the demo repository gives byte-identical files to the committed ones', () => {
  const out = mkdtempSync(join(tmpdir(), 'inferscope-gen-'));
  try {
    const files = generateRepository(out);
    assert.equal(files.length, 13);
    for (const f of files) {
      const rel = relative(out, f);
      const fresh = readFileSync(f);
      const committed = readFileSync(join(REPO, rel));
      assert.ok(fresh.equals(committed), `${rel} differs from model_repository/${rel}: run \`npx inferscope generate-models\``);
      if (f.endsWith('.onnx')) assert.ok(fresh.length < 4 * 1024 * 1024, `${rel} stays under 4 MB`);
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

test('the two mlp versions hold different weights behind the same signature', () => {
  const v1 = readFileSync(join(REPO, 'mlp_classifier/1/model.onnx'));
  const v2 = readFileSync(join(REPO, 'mlp_classifier/2/model.onnx'));
  assert.ok(!v1.equals(v2));
  assert.deepEqual(parseOnnxSignature(v1).inputs, parseOnnxSignature(v2).inputs);
});

test('each demo model has the signature its config.pbtxt declares', () => {
  const sig = (m: string) => parseOnnxSignature(readFileSync(join(REPO, m, '1/model.onnx')));
  assert.deepEqual(sig('cnn_classifier').inputs[0].dims, [-1, 3, 64, 64]);
  assert.deepEqual(sig('text_encoder').inputs[0], { name: 'token_ids', data_type: 'TYPE_INT64', onnx_type: 'INT64', dims: [-1, -1] });
  assert.deepEqual(sig('text_encoder').outputs[0].dims, [-1, 64]);
  const cfg = readFileSync(join(REPO, 'text_encoder/config.pbtxt'), 'utf8');
  assert.match(cfg, /name: "token_ids"\s+data_type: TYPE_INT64\s+dims: \[ -1 \]/);
  assert.match(cfg, /^# .*What it shows/m);
  // the stateful model: the batcher feeds START, READY and INPUT_STATE; the client sends INPUT alone
  assert.deepEqual(sig('accumulator').inputs.map((t) => t.name), ['INPUT', 'START', 'READY', 'INPUT_STATE']);
  assert.deepEqual(sig('accumulator').outputs.map((t) => t.name), ['OUTPUT', 'OUTPUT_STATE']);
});
