import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, expectOne, issuesOf, rawIssuesOf } from './test-helpers';

test('the base config is valid', () => {
  assert.deepEqual(issuesOf(BASE), []);
});

test('name: required', () => {
  expectOne(rawIssuesOf(BASE.replace('name: "m"', '') + 'backend: "onnxruntime" version_policy { latest { } } instance_group { kind: KIND_CPU }'),
    "model configuration must specify 'name'");
});

test('name: must equal the folder name', () => {
  const issue = expectOne(issuesOf(BASE, { folderName: 'other' }),
    "unexpected directory name 'other' for model 'm', directory name must equal model name");
  assert.match(issue.hint ?? '', /rename the folder/);
  assert.equal(issue.path, 'name');
});

test('platform: no platform, backend or model file and a folder name without a backend', () => {
  expectOne(issuesOf(BASE.replace('platform: "onnxruntime_onnx"', '')), "Could not determine backend for model 'm'");
});

test('platform: unknown platform, with a suggestion', () => {
  const issue = expectOne(issuesOf(BASE.replace('onnxruntime_onnx', 'onnx')), "unexpected platform type 'onnx' for m");
  assert.match(issue.hint ?? '', /did you mean platform: "onnxruntime_onnx"/);
});

test('platform: an ensemble cannot have a backend', () => {
  const issues = issuesOf(BASE.replace('platform: "onnxruntime_onnx"', 'platform: "ensemble" backend: "python"'));
  assert.match(issues[0]!.message, /Ensemble model 'm' must have platform type 'ensemble' and empty backend type/);
});

test('platform: backend and platform must be a pair', () => {
  const issue = expectOne(issuesOf(BASE.replace('platform: "onnxruntime_onnx"', 'platform: "tensorrt_plan" backend: "onnxruntime"')),
    "unexpected 'platform' and 'backend' pair, got:tensorrt_plan, onnxruntime");
  assert.match(issue.hint ?? '', /onnxruntime_onnx\/onnxruntime/);
  assert.deepEqual(issuesOf(BASE.replace('platform: "onnxruntime_onnx"', 'platform: "onnxruntime_onnx" backend: "onnxruntime"')), []);
  // a backend Triton does not know pairs with any platform
  assert.deepEqual(issuesOf(BASE.replace('platform: "onnxruntime_onnx"', 'platform: "whatever" backend: "custom"')), []);
});

test('max_batch_size: non-negative', () => {
  expectOne(issuesOf(BASE.replace('max_batch_size: 8', 'max_batch_size: -1')), "'max_batch_size' must be non-negative value for m");
});

test('version policy: required after normalisation', () => {
  expectOne(rawIssuesOf(BASE + 'backend: "onnxruntime" instance_group { kind: KIND_CPU }'), "must specify 'version policy' for m");
});

test('dynamic batching: preferred sizes positive', () => {
  expectOne(issuesOf(BASE + 'dynamic_batching { preferred_batch_size: [ 0 ] }'), 'dynamic batching preferred size must be positive for m');
});

test('dynamic batching: preferred sizes not above max_batch_size, with a hint', () => {
  const issue = expectOne(issuesOf(BASE + 'dynamic_batching { preferred_batch_size: [ 4, 16 ] }'),
    'dynamic batching preferred size must be <= max batch size for m');
  assert.match(issue.hint ?? '', /16 is larger than max_batch_size 8/);
  const nobatch = expectOne(issuesOf(BASE.replace('max_batch_size: 8', '') + 'dynamic_batching { preferred_batch_size: [ 4 ] }'),
    'dynamic batching preferred size must be <= max batch size');
  assert.match(nobatch.hint ?? '', /max_batch_size is 0/);
});

test('dynamic batching: default priority level within the levels', () => {
  expectOne(issuesOf(BASE + 'dynamic_batching { priority_levels: 3 }'), 'default priority level must be in range [1, 3] for m');
  expectOne(issuesOf(BASE + 'dynamic_batching { priority_levels: 3 default_priority_level: 4 }'), 'default priority level must be in range [1, 3]');
  assert.deepEqual(issuesOf(BASE + 'dynamic_batching { priority_levels: 3 default_priority_level: 3 }'), []);
});

test('dynamic batching: priority queue policies only for existing levels', () => {
  const issue = expectOne(issuesOf(BASE + 'dynamic_batching { priority_levels: 2 default_priority_level: 1 priority_queue_policy { key: 3 value { } } }'),
    'priority queue policy must have priority level in range [1, 2] for m');
  assert.equal(issue.path, 'dynamic_batching.priority_queue_policy[3]');
});

test('dynamic batching: preserve_ordering allows one priority level', () => {
  expectOne(issuesOf(BASE + 'dynamic_batching { preserve_ordering: true priority_levels: 2 default_priority_level: 1 }'),
    "Only one priority level is allowed when 'preserve_ordering' is true for m");
});

test('dynamic batching: preserve_ordering forbids DELAY with a timeout', () => {
  const msg = "Queue policy can not have DELAY as timeout action when 'preserve_ordering' is true for m";
  expectOne(issuesOf(BASE + 'dynamic_batching { preserve_ordering: true default_queue_policy { timeout_action: DELAY default_timeout_microseconds: 5 } }'), msg);
  expectOne(issuesOf(BASE + 'dynamic_batching { preserve_ordering: true priority_queue_policy { key: 1 value { timeout_action: DELAY default_timeout_microseconds: 5 } } }'), msg);
  assert.deepEqual(issuesOf(BASE + 'dynamic_batching { preserve_ordering: true default_queue_policy { timeout_action: DELAY } }'), []);
});

test('response cache: not with sequence batching, not with decoupled models', () => {
  expectOne(issuesOf(BASE + 'sequence_batching { } response_cache { enable: true }'),
    'Response Cache does not currently support model m with sequence batching scheduler');
  expectOne(issuesOf(BASE + 'model_transaction_policy { decoupled: true } response_cache { enable: true }'),
    "Response Cache does not currently support model m with 'decoupled' transaction policy");
});

test('model metrics: identifier, family, histogram options and buckets are required', () => {
  expectOne(issuesOf(BASE + 'model_metrics { metric_control { } }'), "metric control must specify 'metric_identifier'");
  expectOne(issuesOf(BASE + 'model_metrics { metric_control { metric_identifier { } } }'), "metric identifier must specify non-empty 'family'");
  expectOne(issuesOf(BASE + 'model_metrics { metric_control { metric_identifier { family: "f" } } }'), "metric control must specify 'histogram_options'");
  expectOne(issuesOf(BASE + 'model_metrics { metric_control { metric_identifier { family: "f" } histogram_options { } } }'),
    "histogram options must specify non-empty 'buckets'");
  assert.deepEqual(issuesOf(BASE + 'model_metrics { metric_control { metric_identifier { family: "f" } histogram_options { buckets: [ 1 ] } } }'), []);
});

test('warmup: concrete dims, a data source, a batch size the model takes', () => {
  expectOne(issuesOf(BASE + 'model_warmup { name: "w" batch_size: 1 inputs { key: "IN" value { data_type: TYPE_FP32 dims: [ -1 ] zero_data: true } } }'),
    "warmup setting expects all variable-size dimensions are specified for input 'IN'");
  expectOne(issuesOf(BASE + 'model_warmup { name: "w" batch_size: 1 inputs { key: "IN" value { data_type: TYPE_FP32 dims: [ 4 ] } } }'),
    "warmup setting expects input 'IN' to have input_data_type set");
  expectOne(issuesOf(BASE + 'model_warmup { name: "w" batch_size: 9 }'), "has batch_size 9, above max_batch_size 8");
  assert.deepEqual(issuesOf(BASE + 'model_warmup { name: "w" batch_size: 2 inputs { key: "IN" value { data_type: TYPE_FP32 dims: [ 4 ] random_data: true } } }'), []);
});

test('issues are reported in Triton order and all of them are returned', () => {
  const issues = issuesOf(BASE.replace('max_batch_size: 8', 'max_batch_size: -1').replace('dims: [ 4 ] }\noutput', 'dims: [ 0 ] }\noutput'));
  assert.equal(issues.length, 2);
  assert.match(issues[0]!.message, /max_batch_size/);
  assert.match(issues[1]!.message, /dimension must be integer >= 1/);
});
