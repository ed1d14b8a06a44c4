import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getBackend } from '../../apps/server/src/backends/registry';
import { BackendUnavailableError } from '../../apps/server/src/backends/types';

test('backend chosen by backend or platform', () => {
  assert.equal(getBackend({ name: 'm', backend: 'onnxruntime' }).name, 'onnxruntime');
  assert.equal(getBackend({ name: 'm', platform: 'onnxruntime_onnx' }).name, 'onnxruntime');
  assert.equal(getBackend({ name: 'm', backend: 'pytorch' }).name, 'pytorch');
  assert.equal(getBackend({ name: 'm', platform: 'pytorch_libtorch' }).name, 'pytorch');
  assert.equal(getBackend({ name: 'm', backend: 'python' }).name, 'python');
});

test('unknown or unavailable backends give an error fit for the UNAVAILABLE reason', () => {
  assert.throws(() => getBackend({ name: 'm', backend: 'tensorflow' }), (e: Error) => {
    assert.ok(e instanceof BackendUnavailableError);
    assert.equal(e.message, "backend 'tensorflow' of model 'm' is not available in InferScope (available: onnxruntime, pytorch, python)");
    return true;
  });
  assert.throws(() => getBackend({ name: 'm', backend: 'magic' }), /unable to find backend 'magic' for model 'm'/);
  assert.throws(() => getBackend({ name: 'm', platform: 'tensorrt_plan' }), /platform 'tensorrt_plan' of model 'm' is not available/);
  assert.throws(() => getBackend({ name: 'm' }), /neither 'backend' nor 'platform'/);
});
