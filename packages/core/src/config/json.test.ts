import { test } from 'node:test';
import assert from 'node:assert/strict';
import { modelConfigToJson } from './json';
import { normalizeModelConfig } from './normalize';
import { parseModelConfig } from './parser';

test('JSON prints every field without presence with its default, and only the sub-messages that are set', () => {
  const config = normalizeModelConfig(
    parseModelConfig('name: "m" platform: "onnxruntime_onnx" max_batch_size: 4 input { name: "IN" data_type: TYPE_FP32 dims: [ 2 ] } dynamic_batching { }'),
    { modelName: 'm', gpuCount: 0 },
  );
  const json = modelConfigToJson(config);
  assert.equal(json.name, 'm');
  assert.equal(json.runtime, '');
  assert.deepEqual(json.output, []);
  assert.deepEqual(json.parameters, {});
  assert.deepEqual(json.version_policy, { latest: { num_versions: 1 } });
  assert.deepEqual((json.input as object[])[0], {
    name: 'IN', data_type: 'TYPE_FP32', format: 'FORMAT_NONE', dims: [2], is_shape_tensor: false,
    allow_ragged_batch: false, optional: false, is_non_linear_format_io: false,
  });
  assert.deepEqual(json.dynamic_batching, {
    preferred_batch_size: [4], max_queue_delay_microseconds: 0, preserve_ordering: false, priority_levels: 0,
    default_priority_level: 0, priority_queue_policy: {},
  });
  assert.equal('sequence_batching' in json, false);
  assert.equal('response_cache' in json, false);
  assert.deepEqual((json.instance_group as object[])[0], {
    name: 'm', kind: 'KIND_CPU', count: 2, gpus: [], secondary_devices: [], profile: [], passive: false, host_policy: '',
  });
});

test('non-finite floats use protobuf JSON spellings and the result is valid JSON', () => {
  const json = modelConfigToJson(parseModelConfig('model_metrics { metric_control { histogram_options { buckets: [ 1, inf, nan ] } } }'));
  const mc = (json.model_metrics as { metric_control: { histogram_options: { buckets: unknown[] } }[] }).metric_control[0]!;
  assert.deepEqual(mc.histogram_options.buckets, [1, 'Infinity', 'NaN']);
  // JSON.stringify writes a bare Infinity or NaN as null: the spellings survive only as strings
  const again = JSON.parse(JSON.stringify(json)) as typeof json;
  assert.deepEqual((again.model_metrics as typeof json.model_metrics), json.model_metrics);
});
