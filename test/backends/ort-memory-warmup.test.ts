import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { MemoryEvent } from '@inferscope/core';
import { instance, loadModel, mlpConfig, request, floats, textConfig } from './fixtures';
import type { OrtExecutor } from '../../apps/server/src/backends/onnxruntime/executor';

const MIB = 1024 * 1024;

test('an instance that would exceed the memory budget is refused with a clear message and holds nothing', async () => {
  const { loaded, ledger } = await loadModel('mlp_classifier', mlpConfig(), { budgets: { cpu: 4 * MIB } });
  const inst = instance('mlp_classifier_0_0');
  await assert.rejects(
    loaded.executor.startInstance!(inst),
    /loading instance mlp_classifier_0_0 of model 'mlp_classifier' version 1 needs \d+\.\d MiB on cpu, only 4\.0 MiB of the budget 4\.0 MiB is free/,
  );
  assert.equal(ledger.used('cpu'), 0);
  assert.equal((loaded.executor as OrtExecutor).workerOf(inst.name), null, 'no worker was started');
  await loaded.unload();
});

test('memory is reserved as modelled, replaced by the measured figure, published and released', async () => {
  const { loaded, ledger, bus } = await loadModel('mlp_classifier', mlpConfig(), { budgets: { cpu: 1024 * MIB } });
  const events: MemoryEvent[] = [];
  bus.on((e) => {
    if (e.type === 'memory') events.push(e);
  });
  const inst = instance('mlp_classifier_0_0');
  await loaded.executor.startInstance!(inst);
  const [entry] = ledger.snapshot()[0].entries;
  assert.equal(entry.instance, 'mlp_classifier_0_0');
  assert.equal(entry.source, 'measured');
  assert.ok(entry.bytes > 0);
  assert.equal(events[0].entries[0].source, 'modelled', 'the estimate comes first');
  assert.equal(events.at(-1)!.entries[0].source, 'measured');
  assert.equal(events.at(-1)!.budget_bytes, 1024 * MIB);
  await loaded.executor.stopInstance!(inst);
  assert.equal(events.at(-1)!.used_bytes, 0);
  assert.deepEqual(ledger.snapshot()[0].entries, []);
  await loaded.unload();
});

test('model_warmup runs before the instance is ready; a bad warmup sample fails the start clearly', async () => {
  const good = mlpConfig({
    model_warmup: [{ name: 'ones', batch_size: 4, count: 2, inputs: { input: { data_type: 'TYPE_FP32', dims: [784], random_data: true } } }],
  });
  const ok = await loadModel('mlp_classifier', good);
  await ok.loaded.executor.startInstance!(instance('mlp_classifier_0_0'));
  await ok.loaded.unload();

  // random int64 warmup data stays inside text_encoder's vocabulary (a Gather index)
  const text = await loadModel('text_encoder', textConfig({
    model_warmup: [{ name: 'tokens', batch_size: 2, inputs: { token_ids: { data_type: 'TYPE_INT64', dims: [8], random_data: true } } }],
  }));
  await text.loaded.executor.startInstance!(instance('text_encoder_0_0'));
  await text.loaded.unload();

  const bad = mlpConfig({
    model_warmup: [{ name: 'wrong', batch_size: 1, inputs: { input: { data_type: 'TYPE_FP32', dims: [100], zero_data: true } } }],
  });
  const { loaded, ledger } = await loadModel('mlp_classifier', bad);
  await assert.rejects(
    loaded.executor.startInstance!(instance('mlp_classifier_0_0')),
    /instance mlp_classifier_0_0 of model 'mlp_classifier' failed to start: .*input/i,
  );
  assert.equal(ledger.used('cpu'), 0, 'a failed start releases its reservation');
  await loaded.unload();
});

test('lazy_load defers the session to the first batch', async () => {
  const config = mlpConfig({
    parameters: { intra_op_thread_count: { string_value: '1' }, lazy_load: { string_value: 'true' } },
  });
  const { loaded, ledger } = await loadModel('mlp_classifier', config);
  const ex = loaded.executor as OrtExecutor;
  const inst = instance('mlp_classifier_0_0');
  await ex.startInstance(inst);
  try {
    assert.equal(ex.workerOf(inst.name), null);
    assert.equal(ledger.used('cpu'), 0, 'nothing is held before the first batch');
    const [res] = await ex.execute(inst, [request([{ name: 'input', datatype: 'FP32', shape: [1, 784], data: floats(1, 784, 2) }])]);
    assert.deepEqual(res[0].shape, [1, 10]);
    assert.notEqual(ex.workerOf(inst.name), null);
    assert.ok(ledger.used('cpu') > 0);
  } finally {
    await loaded.unload();
  }
});
