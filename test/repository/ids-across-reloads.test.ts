// Request and batch ids name one request (batch) for the server's whole lifetime, also when a model is
// unloaded and loaded again: a reload builds a fresh ModelScheduler whose counters start over, and the
// dashboard and the recorder key on these ids. Real schedulers (default runtime), fake backend.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventBus, type SchedulerEvent } from '@inferscope/core';
import { ModelManager } from '../../apps/server/src/models/model-manager.ts';
import { defaultRuntime } from '../../apps/server/src/models/default-runtime.ts';
import { MemoryLedger } from '../../apps/server/src/memory/ledger.ts';
import { fakeRuntime, makeRepository, cfg } from './fakes.ts';

test('request and batch ids stay unique across unload and reload of a model', async () => {
  const repo = await makeRepository({
    'm/config.pbtxt': cfg({ name: 'm', platform: 'onnxruntime_onnx', max_batch_size: 4 }),
    'm/1/model.onnx': 'x',
  });
  const fake = fakeRuntime();
  const real = defaultRuntime({ memory: new MemoryLedger() });
  const bus = new EventBus();
  const requestIds: string[] = [];
  const batchIds: string[] = [];
  bus.on((e: SchedulerEvent) => {
    if (e.type === 'request.queued') requestIds.push(e.request_id);
    if (e.type === 'batch.formed') batchIds.push(e.batch_id);
  });
  const m = new ModelManager({ repositories: [repo], controlMode: 'explicit', gpuCount: 0, bus, runtime: { ...fake, createScheduler: real.createScheduler } });
  await m.start();
  const payload = { inputs: [{ name: 'x', datatype: 'FP32' as const, shape: [1, 4], data: new Float32Array(4) }] };
  const infer = () => m.infer('m', undefined, { batchSize: 1, shapeKey: '', payload });
  try {
    for (let load = 0; load < 3; load++) {
      await m.load('m');
      await infer();
      await infer();
      await m.unload('m');
    }
  } finally {
    await m.close();
  }
  assert.equal(requestIds.length, 6);
  assert.equal(new Set(requestIds).size, 6, `request ids repeat: ${requestIds.join(' ')}`);
  assert.equal(new Set(batchIds).size, batchIds.length, `batch ids repeat: ${batchIds.join(' ')}`);
  assert.ok(batchIds.length >= 3);
});
