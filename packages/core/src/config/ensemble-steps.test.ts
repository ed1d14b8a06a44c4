import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateEnsembleSteps } from './ensemble-steps';
import { parseModelConfig } from './parser';
import type { ModelConfig } from './types';

const models: Record<string, ModelConfig> = {
  add: parseModelConfig(`name: "add" platform: "onnxruntime_onnx" max_batch_size: 8
    input [ { name: "A" data_type: TYPE_INT32 dims: [ 16 ] }, { name: "B" data_type: TYPE_INT32 dims: [ 16 ] },
            { name: "OPT" data_type: TYPE_INT32 dims: [ 1 ] optional: true } ]
    output [ { name: "SUM" data_type: TYPE_INT32 dims: [ 16 ] } ]`),
  small: parseModelConfig(`name: "small" platform: "onnxruntime_onnx" max_batch_size: 2
    input [ { name: "X" data_type: TYPE_INT32 dims: [ 16 ] } ] output [ { name: "Y" data_type: TYPE_INT32 dims: [ 16 ] } ]`),
  float: parseModelConfig(`name: "float" platform: "onnxruntime_onnx" max_batch_size: 8
    input [ { name: "X" data_type: TYPE_FP32 dims: [ 16 ] } ] output [ { name: "Y" data_type: TYPE_FP32 dims: [ 16 ] } ]`),
  nobatch: parseModelConfig(`name: "nobatch" platform: "onnxruntime_onnx" max_batch_size: 0
    input [ { name: "X" data_type: TYPE_INT32 dims: [ -1, 16 ] } ] output [ { name: "Y" data_type: TYPE_INT32 dims: [ -1, 16 ] } ]`),
};
const lookup = (m: string) => models[m];

const ensemble = (steps: string, maxBatch = 4) => parseModelConfig(`name: "ens" platform: "ensemble" max_batch_size: ${maxBatch}
  input [ { name: "I0" data_type: TYPE_INT32 dims: [ 16 ] }, { name: "I1" data_type: TYPE_INT32 dims: [ 16 ] } ]
  output [ { name: "OUT" data_type: TYPE_INT32 dims: [ 16 ] } ]
  ensemble_scheduling { ${steps} }`);
const addStep = (a = 'A', out = 'SUM') =>
  `step { model_name: "add" input_map { key: "${a}" value: "I0" } input_map { key: "B" value: "I1" } output_map { key: "${out}" value: "OUT" } }`;

test('a consistent ensemble passes (optional step inputs may stay unmapped)', () => {
  assert.deepEqual(validateEnsembleSteps(ensemble(addStep()), lookup), []);
});

test('a step model that is not available', () => {
  const [issue] = validateEnsembleSteps(ensemble('step { model_name: "ghost" input_map { key: "A" value: "I0" } output_map { key: "S" value: "OUT" } }'), lookup);
  assert.equal(issue!.message, 'ensemble ens contains models that are not available: ghost');
});

test('a step model with a smaller max batch size', () => {
  const [issue] = validateEnsembleSteps(ensemble('step { model_name: "small" input_map { key: "X" value: "I0" } output_map { key: "Y" value: "OUT" } }'), lookup);
  assert.equal(issue!.message, 'ensemble ens allows maximum batch size 4, but it contains model small which only allows maximum batch size to be 2');
});

test('mappings must name real inputs and outputs, and every required input is fed', () => {
  assert.match(validateEnsembleSteps(ensemble(addStep('NOPE')), lookup)[0]!.message,
    /in ensemble ens, ensemble tensor I0 is mapping to non-existing input NOPE in model add/);
  assert.match(validateEnsembleSteps(ensemble(addStep('A', 'NOPE')), lookup)[0]!.message,
    /in ensemble ens, ensemble tensor OUT is mapped from non-existing output NOPE in model add/);
  const unfed = ensemble('step { model_name: "add" input_map { key: "A" value: "I0" } output_map { key: "SUM" value: "OUT" } }');
  assert.match(validateEnsembleSteps(unfed, lookup)[0]!.message, /in ensemble ens, input B in model add is not mapped to any ensemble tensors/);
});

test('an ensemble tensor has one data type', () => {
  const [issue] = validateEnsembleSteps(ensemble('step { model_name: "float" input_map { key: "X" value: "I0" } output_map { key: "Y" value: "OUT" } }'), lookup);
  assert.equal(issue!.message,
    'in ensemble ens, ensemble tensor I0: inconsistent data type: TYPE_INT32 is inferred from model ens while TYPE_FP32 is inferred from model float');
});

test('shapes compare with wildcards, and with the batch dimension expanded', () => {
  // nobatch takes [-1, 16]: equals the batching ensemble's [16] once the batch dimension is added
  assert.deepEqual(validateEnsembleSteps(ensemble('step { model_name: "nobatch" input_map { key: "X" value: "I0" } output_map { key: "Y" value: "OUT" } }', 0), lookup)
    .map((i) => i.message), ['in ensemble ens, ensemble tensor I0: inconsistent shape: [16] is inferred from model ens while [-1,16] is inferred from model nobatch']);
  assert.deepEqual(validateEnsembleSteps(ensemble('step { model_name: "nobatch" input_map { key: "X" value: "I0" } output_map { key: "Y" value: "OUT" } }', 4), lookup), []);
});

test('an ensemble that caches responses over a decoupled step is refused as Triton refuses a decoupled model with a cache', () => {
  const decoupledAdd = parseModelConfig(`name: "add" platform: "onnxruntime_onnx" max_batch_size: 8
    input [ { name: "A" data_type: TYPE_INT32 dims: [ 16 ] }, { name: "B" data_type: TYPE_INT32 dims: [ 16 ] } ]
    output [ { name: "SUM" data_type: TYPE_INT32 dims: [ 16 ] } ] model_transaction_policy { decoupled: true }`);
  const cached = { ...ensemble(addStep()), response_cache: { enable: true } };
  const [issue] = validateEnsembleSteps(cached, (m) => (m === 'add' ? decoupledAdd : undefined));
  assert.equal(issue!.message, "Response Cache does not currently support model ens with 'decoupled' transaction policy. Please disable the response cache.");
  // the same ensemble without the cache, or over a step that is not decoupled, passes
  assert.deepEqual(validateEnsembleSteps(ensemble(addStep()), (m) => (m === 'add' ? decoupledAdd : undefined)), []);
  assert.deepEqual(validateEnsembleSteps(cached, lookup), []);
});
