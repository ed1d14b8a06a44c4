import { test } from 'node:test';
import assert from 'node:assert/strict';
import { modelConfigFromJson } from './from-json';
import { modelConfigToJson } from './json';
import { normalizeModelConfig } from './normalize';
import { parseModelConfig } from './parser';
import { printModelConfig } from './printer';

const refuse = (doc: unknown, message: RegExp) => assert.throws(() => modelConfigFromJson(doc), message);

test("Triton's own config JSON reads back to the same config (round trip through the printer)", () => {
  const config = normalizeModelConfig(
    parseModelConfig(`name: "m" platform: "onnxruntime_onnx" max_batch_size: 8
      input { name: "IN" data_type: TYPE_FP32 dims: [ 2, -1 ] }
      output { name: "OUT" data_type: TYPE_INT64 dims: [ 1 ] }
      dynamic_batching { preferred_batch_size: [ 4 ] max_queue_delay_microseconds: 100
        priority_queue_policy { key: 1 value { timeout_action: DELAY max_queue_size: 3 } } }
      instance_group { count: 2 kind: KIND_CPU }
      parameters { key: "k" value { string_value: "v" } }`),
    { modelName: 'm', gpuCount: 0 },
  );
  const json = JSON.parse(JSON.stringify(modelConfigToJson(config)));
  const back = modelConfigFromJson(json);
  assert.equal(printModelConfig(back), printModelConfig(modelConfigFromJson(JSON.parse(JSON.stringify(modelConfigToJson(back))))));
  assert.equal(back.max_batch_size, 8);
  assert.deepEqual(back.input?.[0]?.dims, [2, -1]);
  assert.equal(back.dynamic_batching?.priority_queue_policy?.['1']?.timeout_action, 'DELAY');
  assert.equal(back.parameters?.k?.string_value, 'v');
});

test('protobuf JSON mapping: camelCase names, integers as decimal strings, enums in any case or by number, null = unset', () => {
  const c = modelConfigFromJson({
    maxBatchSize: '16',
    input: [{ name: 'x', dataType: 'type_fp32', dims: ['3', 4] }],
    instance_group: [{ kind: 2, count: 1 }],
    dynamic_batching: null,
    optimization: { priority: 'PRIORITY_MAX' },
  });
  assert.equal(c.max_batch_size, 16);
  assert.equal(c.input?.[0]?.data_type, 'TYPE_FP32');
  assert.deepEqual(c.input?.[0]?.dims, [3, 4]);
  assert.equal(c.instance_group?.[0]?.kind, 'KIND_CPU');
  assert.equal(c.dynamic_batching, undefined);
});

test('an unknown field is refused at every nesting level, with its location', () => {
  refuse({ max_batch_sise: 4 }, /^ConfigJsonError: max_batch_sise: Cannot find field\.$/);
  refuse({ dynamic_batching: { max_queue_delay: 5 } }, /^ConfigJsonError: \(dynamic_batching\) max_queue_delay: Cannot find field\.$/);
  refuse({ instance_group: [{ count: 1 }, { cuont: 1 }] }, /\(instance_group\[1\]\) cuont: Cannot find field\./);
  refuse({ input: [{ name: 'x', reshape: { shap: [1] } }] }, /\(input\[0\]\.reshape\) shap: Cannot find field\./);
  refuse({ dynamic_batching: { priority_queue_policy: { 1: { max_queue_sz: 1 } } } }, /\(dynamic_batching\.priority_queue_policy\["1"\]\) max_queue_sz: Cannot find field\./);
  refuse({ parameters: { k: { string_value: 'v', extra: 1 } } }, /\(parameters\["k"\]\) extra: Cannot find field\./);
  refuse({ sequence_batching: { control_input: [{ name: 'c', control: [{ kind: 'CONTROL_SEQUENCE_START', int32_false_true: [0, 1], bogus: 1 }] }] } },
    /\(sequence_batching\.control_input\[0\]\.control\[0\]\) bogus: Cannot find field\./);
});

test('a value of the wrong JSON type is refused, never coerced', () => {
  refuse({ max_batch_size: 'eight' }, /\(max_batch_size\): invalid value "eight" for type TYPE_INT32/);
  refuse({ max_batch_size: 8.5 }, /\(max_batch_size\): invalid value 8\.5 for type TYPE_INT32/);
  refuse({ max_batch_size: true }, /invalid value true for type TYPE_INT32/);
  refuse({ max_batch_size: [8] }, /invalid value a JSON array for type TYPE_INT32/);
  refuse({ max_batch_size: 2 ** 31 }, /out of range/);
  refuse({ input: [{ dims: [1, 2 ** 60] }] }, /\(input\[0\]\.dims\[1\]\).*beyond 2\^53-1/);
  refuse({ name: 5 }, /\(name\): invalid value 5 for type TYPE_STRING/);
  refuse({ dynamic_batching: { preserve_ordering: 'true' } }, /\(dynamic_batching\.preserve_ordering\): invalid value "true" for type TYPE_BOOL/);
  refuse({ dynamic_batching: 4 }, /\(dynamic_batching\): invalid value 4 for type inference\.ModelDynamicBatching/);
  refuse({ dynamic_batching: [] }, /invalid value a JSON array for type inference\.ModelDynamicBatching/);
  refuse({ input: { name: 'x' } }, /\(input\): invalid value a JSON object for type repeated field/);
  refuse({ dynamic_batching: { preferred_batch_size: 4 } }, /\(dynamic_batching\.preferred_batch_size\): invalid value 4 for type repeated/);
  refuse({ input: [{ data_type: 'FP32' }] }, /\(input\[0\]\.data_type\): invalid value "FP32" for type inference\.DataType/);
  refuse({ instance_group: [{ kind: 9 }] }, /invalid value 9 for type inference\.ModelInstanceGroup\.Kind/);
  refuse({ parameters: { k: 'v' } }, /\(parameters\["k"\]\): invalid value "v" for type inference\.ModelParameter/);
  refuse({ dynamic_batching: { priority_queue_policy: { one: {} } } }, /TYPE_UINT64 map key/);
  refuse({ max_batch_size: 1, maxBatchSize: 2 }, /given twice/);
  refuse({ dynamic_batching: {}, sequence_batching: {} }, /oneof 'scheduling_choice' is already set by 'dynamic_batching'/);
  refuse('text', /invalid value "text" for type inference\.ModelConfig/);
});
