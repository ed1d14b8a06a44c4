import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InputGenerator, modelIOFromConfig } from '../../apps/server/src/loadgen/input-generator.ts';
import { encodeInferBody } from '../../apps/server/src/loadgen/targets.ts';

const mlp = { name: 'mlp', max_batch_size: 64, input: [{ name: 'input', data_type: 'TYPE_FP32', dims: [784] }] };
const text = { name: 'text', max_batch_size: 32, input: [{ name: 'token_ids', data_type: 'TYPE_INT64', dims: [-1] }] };

test('inputs follow the config: batch dim in front, datatype mapped, seeded values', () => {
  const g = new InputGenerator(modelIOFromConfig(mlp), 7);
  const p = g.payload(4);
  assert.equal(p.inputs.length, 1);
  assert.equal(p.inputs[0].name, 'input');
  assert.equal(p.inputs[0].datatype, 'FP32');
  assert.deepEqual(p.inputs[0].shape, [4, 784]);
  assert.ok(p.inputs[0].data instanceof Float32Array && p.inputs[0].data.length === 4 * 784);
  const again = new InputGenerator(modelIOFromConfig(mlp), 7).payload(4);
  assert.deepEqual(again.inputs[0].data, p.inputs[0].data, 'same seed, same data');
  const other = new InputGenerator(modelIOFromConfig(mlp), 8).payload(4);
  assert.notDeepEqual(other.inputs[0].data, p.inputs[0].data);
  assert.equal(g.shapeKey(), '');
  assert.throws(() => g.payload(65), /above max_batch_size 64/);
});

test('variable dims come from the arrival shape and form the shape key like the KServe front end', () => {
  const g = new InputGenerator(modelIOFromConfig(text), 1);
  const p = g.payload(2, [37]);
  assert.deepEqual(p.inputs[0].shape, [2, 37]);
  assert.ok(p.inputs[0].data instanceof BigInt64Array);
  assert.equal(g.shapeKey([37]), '37');
  assert.deepEqual(g.payload(1).inputs[0].shape, [1, 16], 'no shape: a default length');
});

test('config without inputs or with an unknown datatype is a clear error', () => {
  assert.throws(() => modelIOFromConfig({ name: 'x', input: [] }), /has no inputs/);
  assert.throws(() => modelIOFromConfig({ name: 'x', input: [{ name: 'a', data_type: 'TYPE_BF16', dims: [1] }] }), /cannot produce/);
});

test('binary bodies carry the header length and binary_data_size of each input', () => {
  const g = new InputGenerator(modelIOFromConfig(mlp), 1);
  const { body, headers } = encodeInferBody(g.payload(2), { binary: true, priority: 2 });
  const hlen = Number(headers['inference-header-content-length']);
  const header = JSON.parse(body.subarray(0, hlen).toString());
  assert.equal(header.inputs[0].parameters.binary_data_size, 2 * 784 * 4);
  assert.equal(header.parameters.priority, 2);
  assert.equal(header.parameters.binary_data_output, true);
  assert.equal(body.length, hlen + 2 * 784 * 4);
  const json = encodeInferBody(g.payload(1), { binary: false });
  const doc = JSON.parse(json.body.toString());
  assert.equal(doc.inputs[0].data.length, 784);
  assert.deepEqual(doc.inputs[0].shape, [1, 784]);
});
