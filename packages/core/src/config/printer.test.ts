import { test } from 'node:test';
import assert from 'node:assert/strict';
import { normalizeModelConfig } from './normalize';
import { parseModelConfig } from './parser';
import { printModelConfig } from './printer';
import type { ModelConfig } from './types';

const SAMPLE = `
name: "m"
platform: "onnxruntime_onnx"
max_batch_size: 8
version_policy { specific { versions: [ 1, 3 ] } }
input [
  { name: "IN" data_type: TYPE_FP32 format: FORMAT_NCHW dims: [ 3, -1, -1 ] reshape { shape: [ 3, -1, -1 ] } },
  { name: "LEN" data_type: TYPE_INT64 dims: [ 1 ] optional: true }
]
output { name: "OUT" data_type: TYPE_FP32 dims: [ 10 ] label_filename: "labels.txt" }
dynamic_batching {
  preferred_batch_size: [ 4, 8 ]
  max_queue_delay_microseconds: 100
  priority_levels: 2
  default_priority_level: 2
  default_queue_policy { timeout_action: DELAY default_timeout_microseconds: 5000 allow_timeout_override: true }
  priority_queue_policy { key: 1 value { max_queue_size: 3 } }
}
instance_group [ { count: 2 kind: KIND_CPU }, { kind: KIND_GPU gpus: [ 0 ] rate_limiter { resources { name: "r" count: 2 global: true } } } ]
parameters { key: "weird \\"key\\"\\n" value { string_value: "tab\\there" } }
metric_tags { key: "team" value: "vision" }
model_warmup { name: "w" batch_size: 1 inputs { key: "IN" value { data_type: TYPE_FP32 dims: [ 3, 8, 8 ] zero_data: true } } }
optimization { graph { level: -1 } execution_accelerators { cpu_execution_accelerator { name: "openvino" } } }
model_metrics { metric_control { metric_identifier { family: "nv_inference_request_duration" } histogram_options { buckets: [ 0.5, -1, 1e+21, inf ] } } }
response_cache { enable: false }
`;

const roundTrip = (c: ModelConfig) => parseModelConfig(printModelConfig(c));

test('printing then parsing gives back the same config', () => {
  const config = parseModelConfig(SAMPLE);
  assert.deepEqual(roundTrip(config), config);
});

test('the normalised config round-trips too', () => {
  const config = normalizeModelConfig(parseModelConfig(SAMPLE), { modelName: 'm', gpuCount: 1 });
  assert.deepEqual(roundTrip(config), config);
});

test('empty values survive: zero, false, empty list, empty map, empty message', () => {
  const config: ModelConfig = {
    max_batch_size: 0, input: [], dynamic_batching: { preferred_batch_size: [], priority_queue_policy: {} },
    response_cache: { enable: false }, version_policy: { all: {} }, parameters: {},
  };
  assert.deepEqual(roundTrip(config), config);
});

test('the text is idiomatic pbtxt', () => {
  const text = printModelConfig(parseModelConfig(`
    name: "m" max_batch_size: 4
    input [ { name: "a" data_type: TYPE_FP32 dims: [ 1, 2 ] }, { name: "b" data_type: TYPE_INT32 dims: [ 3 ] } ]
    dynamic_batching { }
    parameters { key: "k" value { string_value: "v" } }
  `));
  assert.equal(text, [
    'name: "m"',
    'max_batch_size: 4',
    'input [',
    '  {',
    '    name: "a"',
    '    data_type: TYPE_FP32',
    '    dims: [ 1, 2 ]',
    '  },',
    '  {',
    '    name: "b"',
    '    data_type: TYPE_INT32',
    '    dims: [ 3 ]',
    '  }',
    ']',
    'dynamic_batching { }',
    'parameters {',
    '  key: "k"',
    '  value {',
    '    string_value: "v"',
    '  }',
    '}',
    '',
  ].join('\n'));
});

test('strings with quotes, backslashes and control characters are escaped and read back', () => {
  const config: ModelConfig = { name: 'a"b\\c\nd\x01e ü' };
  const text = printModelConfig(config);
  assert.equal(text, 'name: "a\\"b\\\\c\\nd\\001e ü"\n');
  assert.deepEqual(parseModelConfig(text), config);
});
