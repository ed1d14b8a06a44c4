import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  executionProviders,
  intraOpThreads,
  lazyLoad,
  sessionOptions,
} from '../../apps/server/src/backends/onnxruntime/session-options';

const param = (v: string) => ({ string_value: v });

test('intra-op threads: the configured value, else the cores shared among the instances', () => {
  assert.equal(intraOpThreads({ name: 'm', parameters: { intra_op_thread_count: param('3') } }, 2), 3);
  assert.equal(intraOpThreads({ name: 'm', instance_group: [{ count: 2 }] }, 2), 1);
  assert.equal(intraOpThreads({ name: 'm', instance_group: [{ count: 1 }] }, 8), 8);
  assert.equal(intraOpThreads({ name: 'm', instance_group: [{ count: 3 }, { count: 2 }] }, 8), 1);
  assert.equal(intraOpThreads({ name: 'm', instance_group: [{ count: 4 }] }, 2), 1, 'never below one');
});

test('session options follow Triton keys and refuse bad values', () => {
  const o = sessionOptions(
    { name: 'm', optimization: { graph: { level: 1 } }, parameters: { execution_mode: param('1'), enable_mem_arena: param('false') } },
    2,
  );
  assert.equal(o.executionMode, 'parallel');
  assert.equal(o.graphOptimizationLevel, 'extended');
  assert.equal(o.enableCpuMemArena, false);
  assert.throws(() => sessionOptions({ name: 'm', parameters: { intra_op_thread_count: param('two') } }, 2), /'intra_op_thread_count' of model 'm' must be an integer >= 0 and <= 1024 \(plain digits\), got 'two'/);
  assert.throws(() => sessionOptions({ name: 'm', parameters: { execution_mode: param('2') } }, 2), /'execution_mode' of model 'm' must be an integer >= 0 and <= 1 \(plain digits\), got '2'/);
  assert.throws(() => lazyLoad({ name: 'm', parameters: { lazy_load: param('maybe') } }), /must be true or false/);
  assert.equal(lazyLoad({ name: 'm', parameters: { lazy_load: param('TRUE') } }), true);
});

test('execution providers come from the instance kind and the GPU accelerators', () => {
  assert.deepEqual(executionProviders({ name: 'm' }, 'KIND_CPU', 0), ['cpu']);
  assert.deepEqual(executionProviders({ name: 'm' }, 'KIND_GPU', 1), [{ name: 'cuda', deviceId: 1 }, 'cpu']);
  const trt = { name: 'm', optimization: { execution_accelerators: { gpu_execution_accelerator: [{ name: 'tensorrt' }] } } };
  assert.deepEqual(executionProviders(trt, 'KIND_GPU', 0), [{ name: 'tensorrt', deviceId: 0 }, { name: 'cuda', deviceId: 0 }, 'cpu']);
  assert.deepEqual(executionProviders(trt, 'KIND_CPU', 0), ['cpu'], 'GPU accelerators do not apply to CPU instances');
  const ov = { name: 'm', optimization: { execution_accelerators: { cpu_execution_accelerator: [{ name: 'openvino' }] } } };
  assert.throws(() => executionProviders(ov, 'KIND_CPU', 0), /unknown Execution Accelerator 'openvino'/);
});
