import { test } from 'node:test';
import assert from 'node:assert/strict';
import { normalizeModelConfig } from './normalize';
import { parseModelConfig } from './parser';
import type { ModelConfig } from './types';

const norm = (text: string, gpuCount = 0, modelName = 'm', versionEntries?: { name: string; isDirectory: boolean }[]) =>
  normalizeModelConfig(parseModelConfig(text), { modelName, gpuCount, versionEntries });

test('name comes from the folder when absent, and is kept when present', () => {
  assert.equal(norm('platform: "onnxruntime_onnx"', 0, 'folder').name, 'folder');
  assert.equal(norm('name: "own" platform: "onnxruntime_onnx"', 0, 'folder').name, 'own');
});

test('version policy defaults to latest 1, a given one is kept', () => {
  assert.deepEqual(norm('platform: "onnxruntime_onnx"').version_policy, { latest: { num_versions: 1 } });
  assert.deepEqual(norm('platform: "onnxruntime_onnx" version_policy { all { } }').version_policy, { all: {} });
});

test('platform and backend fill each other, with the default model file name', () => {
  const pairs: [string, Partial<ModelConfig>][] = [
    ['platform: "onnxruntime_onnx"', { platform: 'onnxruntime_onnx', backend: 'onnxruntime', default_model_filename: 'model.onnx' }],
    ['backend: "onnxruntime"', { platform: 'onnxruntime_onnx', backend: 'onnxruntime', default_model_filename: 'model.onnx' }],
    ['platform: "tensorrt_plan"', { platform: 'tensorrt_plan', backend: 'tensorrt', default_model_filename: 'model.plan' }],
    ['backend: "tensorrt"', { platform: 'tensorrt_plan', backend: 'tensorrt', default_model_filename: 'model.plan' }],
    ['platform: "pytorch_libtorch"', { platform: 'pytorch_libtorch', backend: 'pytorch' }],
    ['backend: "pytorch"', { platform: 'pytorch_libtorch', backend: 'pytorch', default_model_filename: 'model.pt' }],
    ['platform: "tensorflow_graphdef"', { platform: 'tensorflow_graphdef', backend: 'tensorflow', default_model_filename: 'model.graphdef' }],
    ['platform: "tensorflow_savedmodel"', { platform: 'tensorflow_savedmodel', backend: 'tensorflow', default_model_filename: 'model.savedmodel' }],
    ['backend: "python"', { backend: 'python', default_model_filename: 'model.py' }],
    ['backend: "openvino"', { backend: 'openvino', default_model_filename: 'model.xml' }],
    ['default_model_filename: "model.onnx"', { platform: 'onnxruntime_onnx', backend: 'onnxruntime' }],
  ];
  for (const [text, expected] of pairs) {
    const c = norm(text);
    for (const [k, v] of Object.entries(expected)) assert.equal(c[k as keyof ModelConfig], v, `${text}: ${k}`);
  }
});

test('an ensemble keeps its platform, gets no backend, no instance group and no optimization', () => {
  const c = norm('platform: "ensemble" ensemble_scheduling { step { model_name: "a" } }');
  assert.equal(c.backend, undefined);
  assert.equal(c.instance_group, undefined);
  assert.equal(c.optimization, undefined);
});

test('the model file in the first version folder decides the backend when the config names none', () => {
  const onnx = norm('max_batch_size: 1', 0, 'm', [{ name: 'model.onnx', isDirectory: false }]);
  assert.equal(onnx.backend, 'onnxruntime');
  assert.equal(onnx.platform, 'onnxruntime_onnx');
  const py = norm('', 0, 'm', [{ name: 'model.py', isDirectory: false }]);
  assert.equal(py.backend, 'python');
  const saved = norm('', 0, 'm', [{ name: 'model.savedmodel', isDirectory: true }]);
  assert.equal(saved.platform, 'tensorflow_savedmodel');
});

test('a custom backend is taken from a folder named model.<backend>', () => {
  const c = norm('', 0, 'model.identity');
  assert.equal(c.backend, 'identity');
  assert.equal(c.default_model_filename, 'model.identity');
  assert.equal(norm('', 0, 'plain').backend, undefined);
});

test('no instance_group: one group named after the model, CPU without GPUs (2 instances for onnxruntime)', () => {
  assert.deepEqual(norm('platform: "onnxruntime_onnx"', 0).instance_group, [{ name: 'm', kind: 'KIND_CPU', count: 2 }]);
  assert.deepEqual(norm('backend: "python"', 0).instance_group, [{ name: 'm', kind: 'KIND_CPU', count: 1 }]);
});

test('no instance_group with GPUs: one KIND_GPU instance on every GPU', () => {
  assert.deepEqual(norm('platform: "onnxruntime_onnx"', 2).instance_group, [{ name: 'm', kind: 'KIND_GPU', count: 1, gpus: [0, 1] }]);
});

test('groups get names <model>_<index>, counts default to 1 and KIND_GPU gets all GPU ids', () => {
  const c = norm(`platform: "pytorch_libtorch"
    instance_group [ { kind: KIND_CPU }, { name: "mine" count: 3 kind: KIND_CPU }, { kind: KIND_GPU } ]`, 2);
  assert.deepEqual(c.instance_group, [
    { name: 'm_0', kind: 'KIND_CPU', count: 1 },
    { name: 'mine', count: 3, kind: 'KIND_CPU' },
    { name: 'm_2', kind: 'KIND_GPU', count: 1, gpus: [0, 1] },
  ]);
});

test('KIND_AUTO resolves to GPU only when every listed GPU exists', () => {
  const groups = (gpus: number) =>
    norm('backend: "python" instance_group [ { count: 1 }, { count: 1 gpus: [ 1 ] } ]', gpus).instance_group?.map((g) => g.kind);
  assert.deepEqual(groups(0), ['KIND_CPU', 'KIND_CPU']);
  assert.deepEqual(groups(1), ['KIND_GPU', 'KIND_CPU']);
  assert.deepEqual(groups(2), ['KIND_GPU', 'KIND_GPU']);
});

test('a count below 1 gets the default count', () => {
  const c = norm('platform: "onnxruntime_onnx" instance_group { count: -3 kind: KIND_CPU }');
  assert.equal(c.instance_group?.[0]?.count, 2);
});

test('dynamic batching: preferred sizes kept, else max_batch_size; none when the model does not batch', () => {
  assert.deepEqual(norm('platform: "onnxruntime_onnx" max_batch_size: 8 dynamic_batching { preferred_batch_size: [ 2, 4 ] }')
    .dynamic_batching?.preferred_batch_size, [2, 4]);
  assert.deepEqual(norm('platform: "onnxruntime_onnx" max_batch_size: 8 dynamic_batching { }').dynamic_batching, { preferred_batch_size: [8] });
  assert.deepEqual(norm('platform: "onnxruntime_onnx" dynamic_batching { }').dynamic_batching, { preferred_batch_size: [] });
});

test('sequence batching: default idle time and oldest preferred size', () => {
  const c = norm('platform: "onnxruntime_onnx" max_batch_size: 4 sequence_batching { oldest { max_candidate_sequences: 2 } }');
  assert.equal(c.sequence_batching?.max_sequence_idle_microseconds, 1_000_000);
  assert.deepEqual(c.sequence_batching?.oldest?.preferred_batch_size, [4]);
  const kept = norm('platform: "onnxruntime_onnx" sequence_batching { max_sequence_idle_microseconds: 5 }');
  assert.equal(kept.sequence_batching?.max_sequence_idle_microseconds, 5);
});

test('pinned memory is enabled unless configured', () => {
  assert.deepEqual(norm('platform: "onnxruntime_onnx"').optimization, {
    input_pinned_memory: { enable: true }, output_pinned_memory: { enable: true },
  });
  const c = norm('platform: "onnxruntime_onnx" optimization { input_pinned_memory { enable: false } }');
  assert.deepEqual(c.optimization?.input_pinned_memory, { enable: false });
});

test('the input config is not modified, and normalising twice changes nothing more', () => {
  const raw = parseModelConfig('platform: "onnxruntime_onnx" max_batch_size: 4 dynamic_batching { }');
  const copy = structuredClone(raw);
  const once = normalizeModelConfig(raw, { modelName: 'm', gpuCount: 1 });
  assert.deepEqual(raw, copy);
  assert.deepEqual(normalizeModelConfig(once, { modelName: 'm', gpuCount: 1 }), once);
});
