import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, formatIssue } from './errors';
import { loadModelConfig } from './load';

const TEXT = `name: "m"
platform: "onnxruntime_onnx"
max_batch_size: 8
input [
  {
    name: "IN"
    data_type: TYPE_FP32
    dims: [ 1, 0 ]
  }
]
output { name: "OUT" data_type: TYPE_FP32 dims: [ 1 ] }
`;

test('a valid text gives the normalised config and no error', () => {
  const r = loadModelConfig(TEXT.replace('[ 1, 0 ]', '[ 3, 2 ]'), { modelName: 'm', gpuCount: 0 });
  assert.equal(r.error, undefined);
  assert.deepEqual(r.issues, []);
  assert.deepEqual(r.advice, []);
  assert.deepEqual(r.config?.instance_group, [{ name: 'm', kind: 'KIND_CPU', count: 2 }]);
});

test('a validation issue points at the line and column of its field', () => {
  const r = loadModelConfig(TEXT, { modelName: 'm', gpuCount: 0 });
  assert.equal(r.config, undefined);
  assert.ok(r.normalized);
  const issue = r.issues[0]!;
  assert.match(issue.message, /dimension must be integer >= 1/);
  assert.deepEqual([issue.line, issue.column], [8, 5]);
  assert.match(formatIssue(issue), /; hint: .* \(line 8, column 5\)$/);
});

test('a parse error comes back as a ConfigError, not thrown', () => {
  const r = loadModelConfig('name: "m"\nbogus: 1', { modelName: 'm', gpuCount: 0 });
  assert.ok(r.error instanceof ConfigError);
  assert.equal((r.error as ConfigError).line, 2);
  assert.equal(r.normalized, undefined);
});

test('the folder name check can be switched off', () => {
  assert.match(loadModelConfig(TEXT.replace('[ 1, 0 ]', '[ 1 ]'), { modelName: 'x', gpuCount: 0 }).error?.message ?? '', /unexpected directory name 'x'/);
  assert.equal(loadModelConfig(TEXT.replace('[ 1, 0 ]', '[ 1 ]'), { modelName: 'x', gpuCount: 0, checkFolderName: false }).error, undefined);
});

test('advice is returned with positions and does not make the config invalid', () => {
  const r = loadModelConfig(TEXT.replace('[ 1, 0 ]', '[ 1, 3, 8 ]'), { modelName: 'm', gpuCount: 0 });
  assert.equal(r.error, undefined);
  assert.equal(r.advice.length, 1);
  assert.deepEqual([r.advice[0]!.line, r.advice[0]!.column], [8, 5]);
});
