import { test } from 'node:test';
import assert from 'node:assert/strict';
import { instance, loadModel, mlpConfig, request, floats } from './fixtures';
import type { OrtExecutor } from '../../apps/server/src/backends/onnxruntime/executor';
import '../support/test-hooks.ts';

const oneSample = () => request([{ name: 'input', datatype: 'FP32', shape: [1, 784], data: floats(1, 784, 1) }]);

for (const how of ['terminate', 'throw', 'exit'] as const) {
  test(`a worker that dies (${how}) fails what it was running; the next batch succeeds on a restarted worker`, async () => {
    const { loaded, logs, ledger } = await loadModel('mlp_classifier', mlpConfig());
    const ex = loaded.executor as OrtExecutor;
    const inst = instance('mlp_classifier_0_0');
    await ex.startInstance(inst);
    try {
      const first = ex.workerOf(inst.name)!;
      if (how === 'terminate') {
        // Killed from outside while idle (terminating inside session.run aborts the process in
        // onnxruntime-node; the crash variants below cover a death mid-batch).
        await first.terminate();
        await first.exited;
      } else {
        // the crash message is queued before the batch, so the batch is in flight when the worker dies
        first.crash(how);
        const running = ex.execute(inst, [oneSample()]);
        await assert.rejects(running, how === 'throw' ? /crashed: instance crashed on request/ : /exited with code 3/);
      }
      const [res] = await ex.execute(inst, [oneSample()]);
      assert.deepEqual(res[0].shape, [1, 10]);
      assert.notEqual(ex.workerOf(inst.name), first);
      assert.equal(ex.describe()[0].restarts, 1);
      assert.ok(logs.some((l) => /restarting instance mlp_classifier_0_0/.test(l)), logs.join('\n'));
      assert.equal(ledger.snapshot()[0].entries.length, 1, 'the restarted instance keeps one memory entry');
    } finally {
      await loaded.unload();
    }
  });
}

test('KIND_GPU on a host without CUDA falls back to CPU with a note and keeps serving', async () => {
  // gpuCount 1: the host claims a GPU, so the worker really asks onnxruntime for CUDA and must fall back.
  const config = mlpConfig({
    instance_group: [{ name: 'mlp_classifier_0', kind: 'KIND_GPU', count: 1, gpus: [0] }],
  });
  const { loaded, logs, ledger } = await loadModel('mlp_classifier', config, { gpuCount: 1 });
  const ex = loaded.executor as OrtExecutor;
  const inst = instance('mlp_classifier_0_0', 'KIND_GPU', 'gpu0');
  await ex.startInstance(inst);
  try {
    assert.equal(loaded.notes.length, 1);
    assert.match(loaded.notes[0], /^CUDA execution provider unavailable: .+; running on CPU$/);
    assert.ok(logs.includes(loaded.notes[0]), 'the fallback is logged');
    assert.equal(ex.describe()[0].provider, 'cpu');
    const [res] = await ex.execute(inst, [oneSample()]);
    assert.deepEqual(res[0].shape, [1, 10]);
    const devices = ledger.snapshot().filter((d) => d.entries.length > 0).map((d) => d.device);
    assert.deepEqual(devices, ['cpu'], 'memory is charged to the device the session really uses');
  } finally {
    await loaded.unload();
  }
});

test('KIND_GPU with a tensorrt accelerator on a host with no GPU notes it and runs on CPU', async () => {
  const config = mlpConfig({
    instance_group: [{ name: 'mlp_classifier_0', kind: 'KIND_GPU', count: 1 }],
    optimization: { execution_accelerators: { gpu_execution_accelerator: [{ name: 'tensorrt' }] } },
  });
  const { loaded } = await loadModel('mlp_classifier', config, { gpuCount: 0 });
  const inst = instance('mlp_classifier_0_0', 'KIND_GPU', 'gpu0');
  await loaded.executor.startInstance!(inst);
  try {
    assert.match(loaded.notes[0], /unavailable: this host has no GPU; running on CPU/);
  } finally {
    await loaded.unload();
  }
});

test('an unknown execution accelerator makes the load fail with its name', async () => {
  const config = mlpConfig({
    optimization: { execution_accelerators: { gpu_execution_accelerator: [{ name: 'warp_drive' }] } },
  });
  await assert.rejects(loadModel('mlp_classifier', config), /unknown Execution Accelerator 'warp_drive'/);
});

test('a tensorrt accelerator that cannot load falls back through CUDA to CPU, naming both', async () => {
  const config = mlpConfig({
    instance_group: [{ name: 'mlp_classifier_0', kind: 'KIND_GPU', count: 1 }],
    optimization: { execution_accelerators: { gpu_execution_accelerator: [{ name: 'tensorrt' }] } },
  });
  const { loaded } = await loadModel('mlp_classifier', config, { gpuCount: 1 });
  const ex = loaded.executor as OrtExecutor;
  await ex.startInstance(instance('mlp_classifier_0_0', 'KIND_GPU', 'gpu0'));
  try {
    assert.match(loaded.notes[0], /^TENSORRT\/CUDA execution provider unavailable: .+; running on CPU$/);
    assert.equal(ex.describe()[0].provider, 'cpu');
  } finally {
    await loaded.unload();
  }
});

test('stopping an instance lets the batch it is running finish first', async () => {
  const { loaded, ledger } = await loadModel('mlp_classifier', mlpConfig());
  const ex = loaded.executor as OrtExecutor;
  const inst = instance('mlp_classifier_0_0');
  await ex.startInstance(inst);
  const big = request([{ name: 'input', datatype: 'FP32', shape: [64, 784], data: floats(64, 784, 3) }]);
  const running = ex.execute(inst, [big]);
  // let execute() hand the batch to the worker before asking it to stop
  while ((ex.workerOf(inst.name)?.inFlight ?? 0) === 0) await new Promise((r) => setImmediate(r));
  const stopping = ex.stopInstance(inst);
  const [res] = await running;
  assert.deepEqual(res[0].shape, [64, 10]);
  await stopping;
  assert.equal(ex.workerOf(inst.name), null);
  assert.equal(ledger.used('cpu'), 0);
  await assert.rejects(ex.execute(inst, [oneSample()]), /is not started/);
  await loaded.unload();
});

test('a batch whose inputs were handed to a worker that died before beginning it: resent when copied, failed with the reason when owned', async () => {
  const { loaded } = await loadModel('mlp_classifier', mlpConfig());
  const ex = loaded.executor as OrtExecutor;
  const inst = instance('mlp_classifier_0_0');
  await ex.startInstance(inst);
  try {
    const owned = () => ({ ...oneSample(), payload: { ...oneSample().payload, owned: true as const } });
    const first = ex.workerOf(inst.name)!;
    first.crash('exit');
    const dying = ex.execute(inst, [oneSample()]);
    const copied = ex.execute(inst, [oneSample()]);
    const handedOver = ex.execute(inst, [owned()]);
    // the first was running when the worker died; the other two were queued behind it, never begun
    const [d, c, h] = await Promise.allSettled([dying, copied, handedOver]);
    assert.match(d.status === 'rejected' ? String(d.reason) : 'answered', /exited with code 3 while running/);
    assert.deepEqual(c.status === 'fulfilled' ? c.value[0][0].shape : c.reason, [1, 10], 'a copied batch is sent again to the replacement');
    assert.match(h.status === 'rejected' ? String(h.reason) : 'answered', /went to instance mlp_classifier_0_0's worker thread, which stopped; they cannot be sent again/);
    const [after] = await ex.execute(inst, [owned()]);
    assert.deepEqual(after[0].shape, [1, 10], 'an owned batch on the live worker runs');
  } finally {
    await loaded.unload();
  }
});
