import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { autoCompleteConfig, autoCompleteFromSignature } from '../../apps/server/src/backends/onnxruntime/autocomplete';
import { parseOnnxSignature } from '../../apps/server/src/backends/onnxruntime/onnx-signature';
import { GraphBuilder } from '../../apps/server/src/model-generator/onnx-builder';
import { REPO } from './fixtures';

const mlpFile = join(REPO, 'mlp_classifier/1/model.onnx');

/** A model with a fixed first dimension: [3] -> [3] (Relu). It cannot batch. */
function fixedModel() {
  const g = new GraphBuilder('fixed');
  g.input('x', 'float32', [3]);
  g.node('Relu', ['x'], {}, 'y');
  g.output('y', 'float32', [3]);
  return parseOnnxSignature(g.encode('fixed'));
}

test('reads the ONNX signature without a session', () => {
  const sig = parseOnnxSignature(readFileSync(mlpFile));
  assert.deepEqual(sig.inputs, [{ name: 'input', data_type: 'TYPE_FP32', onnx_type: 'FLOAT', dims: [-1, 784] }]);
  assert.deepEqual(sig.outputs, [{ name: 'probabilities', data_type: 'TYPE_FP32', onnx_type: 'FLOAT', dims: [-1, 10] }]);
  assert.equal(sig.opset, 17);
});

test('an empty config is filled from the model: inputs, outputs, max_batch_size 4, dynamic_batching', () => {
  const { config, filled } = autoCompleteConfig(mlpFile, { name: 'mlp', backend: 'onnxruntime' });
  assert.equal(config.max_batch_size, 4);
  assert.deepEqual(config.dynamic_batching, {});
  assert.deepEqual(config.input, [{ name: 'input', data_type: 'TYPE_FP32', dims: [784] }]);
  assert.deepEqual(config.output, [{ name: 'probabilities', data_type: 'TYPE_FP32', dims: [10] }]);
  assert.equal(filled.length, 4);
});

test('what the config already says is kept; only the missing parts are filled', () => {
  const { config } = autoCompleteConfig(mlpFile, {
    name: 'mlp',
    max_batch_size: 64,
    sequence_batching: {},
    input: [{ name: 'input', data_type: 'TYPE_FP32', dims: [784] }],
  });
  assert.equal(config.max_batch_size, 64);
  assert.equal(config.dynamic_batching, undefined, 'no dynamic_batching added next to another scheduler');
  assert.deepEqual(config.output, [{ name: 'probabilities', data_type: 'TYPE_FP32', dims: [10] }]);
});

test('full-rank dims with max_batch_size 0 describe a non-batching use of a batching model', () => {
  const { config } = autoCompleteConfig(mlpFile, {
    name: 'mlp',
    input: [{ name: 'input', data_type: 'TYPE_FP32', dims: [-1, 784] }],
  });
  assert.equal(config.max_batch_size ?? 0, 0);
  assert.deepEqual(config.output, [{ name: 'probabilities', data_type: 'TYPE_FP32', dims: [-1, 10] }]);
});

test('a config that contradicts the model is refused with both shapes, in the words of Triton\'s backends', () => {
  assert.throws(
    () => autoCompleteConfig(mlpFile, { name: 'mlp', max_batch_size: 8, input: [{ name: 'input', data_type: 'TYPE_FP32', dims: [100] }] }),
    /model 'mlp', tensor 'input': the model expects 2 dimensions \(shape \[-1,784\]\) but the model configuration specifies 2 dimensions \(an initial batch dimension because max_batch_size > 0 followed by the explicit tensor shape, making complete shape \[-1,100\]\)/,
  );
  assert.throws(
    () => autoCompleteConfig(mlpFile, { name: 'mlp', max_batch_size: 8, input: [{ name: 'input', data_type: 'TYPE_INT64', dims: [784] }] }),
    /unexpected datatype TYPE_INT64 for input 'input', model expects TYPE_FP32/,
  );
  assert.throws(
    () => autoCompleteConfig(mlpFile, { name: 'mlp', max_batch_size: 8, input: [{ name: 'pixels', data_type: 'TYPE_FP32', dims: [784] }] }),
    /configuration has input 'pixels' but the model's inputs are: input/,
  );
  assert.throws(
    () => autoCompleteConfig(mlpFile, { name: 'mlp', max_batch_size: 8, output: [{ name: 'probabilities', data_type: 'TYPE_FP32', dims: [12] }] }),
    /tensor 'probabilities': the model expects 2 dimensions \(shape \[-1,10\]\) but .* making complete shape \[-1,12\]\)/,
  );
});

test('a model with a fixed first dimension cannot batch', () => {
  const sig = fixedModel();
  const { config } = autoCompleteFromSignature(sig, { name: 'fixed' });
  assert.equal(config.max_batch_size ?? 0, 0);
  assert.deepEqual(config.input, [{ name: 'x', data_type: 'TYPE_FP32', dims: [3] }]);
  assert.throws(
    () => autoCompleteFromSignature(sig, { name: 'fixed', max_batch_size: 8 }),
    /autofill failed for model 'fixed': model does not support batching while non-zero max_batch_size is specified/,
  );
});

test('a file that is not ONNX gives a clear error', () => {
  assert.throws(() => autoCompleteConfig(join(REPO, 'mlp_classifier/config.pbtxt'), { name: 'x' }), /is not a valid ONNX model/);
  assert.throws(() => autoCompleteConfig('/nonexistent/model.onnx', { name: 'x' }), /unable to read ONNX model file/);
});
