import { test } from 'node:test';
import assert from 'node:assert/strict';
import { expectOne, issuesOf } from './test-helpers';

/** A model with one input and one output whose fields are given. */
const model = (input: string, output = 'name: "OUT" data_type: TYPE_FP32 dims: [ 1 ]', maxBatch = 8, platform = 'onnxruntime_onnx') => `
name: "m" platform: "${platform}" max_batch_size: ${maxBatch}
input { ${input} }
output { ${output} }`;

test('io: a name is required', () => {
  expectOne(issuesOf(model('data_type: TYPE_FP32 dims: [ 1 ]')), "model input must specify 'name' for m");
  expectOne(issuesOf(model('name: "IN" data_type: TYPE_FP32 dims: [ 1 ]', 'data_type: TYPE_FP32 dims: [ 1 ]')),
    "model output must specify 'name' for m");
});

test('io: a data type is required, with the list of types as hint', () => {
  const issue = expectOne(issuesOf(model('name: "IN" dims: [ 1 ]')), "model input 'IN' must specify 'data_type' for m");
  assert.match(issue.hint ?? '', /TYPE_FP32/);
  assert.equal(issue.path, 'input[0].data_type');
});

test('io: dims are required', () => {
  expectOne(issuesOf(model('name: "IN" data_type: TYPE_FP32')), "model input 'IN' must specify 'dims' for m");
});

test('io: dims are >= 1 or -1, with a hint for 0', () => {
  const issue = expectOne(issuesOf(model('name: "IN" data_type: TYPE_FP32 dims: [ 3, 0 ]')),
    "model input 'IN' dimension must be integer >= 1, or -1 to indicate a variable-size dimension for m");
  assert.match(issue.hint ?? '', /-1/);
  expectOne(issuesOf(model('name: "IN" data_type: TYPE_FP32 dims: [ -2 ]')), 'dimension must be integer >= 1');
  assert.deepEqual(issuesOf(model('name: "IN" data_type: TYPE_FP32 dims: [ -1, 3 ]')), []);
});

test('reshape: not empty for a model without batching', () => {
  expectOne(issuesOf(model('name: "IN" data_type: TYPE_FP32 dims: [ 1 ] reshape { shape: [ ] }', undefined, 0)),
    "model input 'IN' cannot have empty reshape for non-batching model as scalar tensors are not supported for m");
  // with batching, an empty reshape of a one-element tensor is a scalar per batch item: fine
  assert.deepEqual(issuesOf(model('name: "IN" data_type: TYPE_FP32 dims: [ 1 ] reshape { shape: [ ] }')), []);
});

test('reshape: dimensions are >= 1 or -1', () => {
  expectOne(issuesOf(model('name: "IN" data_type: TYPE_FP32 dims: [ 2 ] reshape { shape: [ 2, 0 ] }')),
    "model input 'IN' reshape dimensions must be integer >= 1, or -1 to indicate a variable-size dimension for m");
});

test('reshape: same element count as dims, with the counts in the hint', () => {
  const issue = expectOne(issuesOf(model('name: "IN" data_type: TYPE_FP32 dims: [ 6 ] reshape { shape: [ 2, 2 ] }')),
    "model input 'IN' has different size for dims and reshape for m");
  assert.match(issue.hint ?? '', /hold 6 elements but reshape \[2, 2\] holds 4/);
  assert.deepEqual(issuesOf(model('name: "IN" data_type: TYPE_FP32 dims: [ 6 ] reshape { shape: [ 2, 3 ] }')), []);
});

test('reshape: variable dimensions must match in number and in the fixed chunks between them', () => {
  expectOne(issuesOf(model('name: "IN" data_type: TYPE_FP32 dims: [ -1 ] reshape { shape: [ -1, -1 ] }')),
    "model input 'IN' has different number of variable-size dimensions for dims and reshape for m");
  expectOne(issuesOf(model('name: "IN" data_type: TYPE_FP32 dims: [ 2, -1, 3 ] reshape { shape: [ 3, -1, 2 ] }')),
    "model input 'IN' has different size for dims and reshape for m");
  expectOne(issuesOf(model('name: "IN" data_type: TYPE_FP32 dims: [ 2, -1 ] reshape { shape: [ 4 ] }')),
    'has different size for dims and reshape');
  assert.deepEqual(issuesOf(model('name: "IN" data_type: TYPE_FP32 dims: [ 2, 4, -1, 6 ] reshape { shape: [ 8, -1, 1, 6 ] }')), []);
});

test('format: NHWC/NCHW need 3 dims; 4 dims with batching hints at the batch dimension', () => {
  const issue = expectOne(issuesOf(model('name: "IN" data_type: TYPE_FP32 format: FORMAT_NCHW dims: [ 1, 3, 224, 224 ]')),
    'model input NHWC/NCHW require 3 dims for m');
  assert.match(issue.hint ?? '', /dims exclude the batch dimension; with max_batch_size > 0 Triton prepends it/);
  assert.deepEqual(issuesOf(model('name: "IN" data_type: TYPE_FP32 format: FORMAT_NHWC dims: [ 224, 224, 3 ]')), []);
});

test('shape tensors only for TensorRT', () => {
  expectOne(issuesOf(model('name: "IN" data_type: TYPE_INT32 dims: [ 2 ] is_shape_tensor: true')),
    'shape tensors are only supported for TensorRT platform for m');
  expectOne(issuesOf(model('name: "IN" data_type: TYPE_INT32 dims: [ 2 ]', 'name: "OUT" data_type: TYPE_INT32 dims: [ 2 ] is_shape_tensor: true')),
    'shape tensors are only supported for TensorRT platform');
  assert.deepEqual(issuesOf(model('name: "IN" data_type: TYPE_INT32 dims: [ 2 ] is_shape_tensor: true', undefined, 8, 'tensorrt_plan')), []);
});

test('non-linear IO format only for TensorRT, with 3 dims', () => {
  expectOne(issuesOf(model('name: "IN" data_type: TYPE_FP32 dims: [ 2, 2, 2 ] is_non_linear_format_io: true')),
    'Non-linear IO format is only supported for the TensorRT platform for m');
  expectOne(issuesOf(model('name: "IN" data_type: TYPE_FP32 dims: [ 2 ] is_non_linear_format_io: true', undefined, 8, 'tensorrt_plan')),
    'Non-linear IO format input requires 3 dims for m');
});

test('io: names are unique', () => {
  const text = 'name: "m" platform: "onnxruntime_onnx" input [ { name: "A" data_type: TYPE_FP32 dims: 1 }, { name: "A" data_type: TYPE_FP32 dims: 1 } ] output { name: "O" data_type: TYPE_FP32 dims: 1 }';
  expectOne(issuesOf(text), "model input 'A' is specified more than once for m");
});

const withBatchInput = (bi: string) => model('name: "IN" data_type: TYPE_FP32 dims: [ -1 ]') + `\nbatch_input { ${bi} }`;
const withBatchOutput = (bo: string) => model('name: "IN" data_type: TYPE_FP32 dims: [ -1 ]', 'name: "OUT" data_type: TYPE_FP32 dims: [ -1 ]') + `\nbatch_output { ${bo} }`;

test('batch_input: exactly one source input', () => {
  expectOne(issuesOf(withBatchInput('kind: BATCH_ITEM_SHAPE target_name: "B" data_type: TYPE_INT32')),
    "batch input kind 'BATCH_ITEM_SHAPE' expects 1 source input, got 0 for m");
});

test('batch_input: data type INT32 or FP32', () => {
  expectOne(issuesOf(withBatchInput('kind: BATCH_ELEMENT_COUNT target_name: "B" data_type: TYPE_INT64 source_input: "IN"')),
    'batch input data type must be TYPE_INT32 or TYPE_FP32 for m');
});

test('batch_input: the source is a model input', () => {
  expectOne(issuesOf(withBatchInput('kind: BATCH_ELEMENT_COUNT target_name: "B" data_type: TYPE_INT32 source_input: "NOPE"')),
    "unknown source input name 'NOPE' for m");
  assert.deepEqual(issuesOf(withBatchInput('kind: BATCH_ELEMENT_COUNT target_name: "B" data_type: TYPE_INT32 source_input: "IN"')), []);
});

test('batch_output: one known source, known and distinct targets', () => {
  expectOne(issuesOf(withBatchOutput('target_name: "OUT"')), "batch output kind 'BATCH_SCATTER_WITH_INPUT_SHAPE' expects 1 source input, got 0 for m");
  expectOne(issuesOf(withBatchOutput('target_name: "OUT" source_input: "X"')), "unknown source input name 'X' for m");
  expectOne(issuesOf(withBatchOutput('target_name: "NOPE" source_input: "IN"')), "unknown target output name 'NOPE' for m");
  expectOne(issuesOf(withBatchOutput('target_name: [ "OUT", "OUT" ] source_input: "IN"')), "target output name 'OUT' can only be specified once for m");
  assert.deepEqual(issuesOf(withBatchOutput('target_name: "OUT" source_input: "IN"')), []);
});
