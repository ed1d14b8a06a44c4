import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EventBus } from '@inferscope/core';
import { loadModelConfig } from '@inferscope/core/config';
import { getBackend } from '../../apps/server/src/backends/registry';
import { MemoryLedger } from '../../apps/server/src/memory/ledger';
import { REPO, floats, request } from './fixtures';

// The committed config.pbtxt files, parsed and validated by the config engine, load on the backend
// (including mlp_classifier's warmup) and serve one batch each.
const inputs: Record<string, () => ReturnType<typeof request>> = {
  mlp_classifier: () => request([{ name: 'input', datatype: 'FP32', shape: [2, 784], data: floats(2, 784, 5) }]),
  cnn_classifier: () => request([{ name: 'image', datatype: 'FP32', shape: [1, 3, 64, 64], data: floats(1, 3 * 64 * 64, 6) }]),
  text_encoder: () => request([{ name: 'token_ids', datatype: 'INT64', shape: [1, 4], data: BigInt64Array.from([3n, 1n, 4n, 1n]) }]),
};

for (const model of Object.keys(inputs)) {
  test(`model_repository/${model} loads from its config.pbtxt and serves`, async () => {
    const text = readFileSync(join(REPO, model, 'config.pbtxt'), 'utf8');
    const { config, error } = loadModelConfig(text, { modelName: model, gpuCount: 0 });
    assert.ok(config, String(error?.message));
    const versionDir = join(REPO, model, '1');
    const loaded = await getBackend(config).load({
      model, version: '1', versionDir, modelFile: join(versionDir, 'model.onnx'), config,
      gpuCount: 0, log: () => {}, memory: new MemoryLedger({ bus: new EventBus() }),
    });
    const group = config.instance_group![0];
    const inst = { name: `${group.name}_0`, group: group.name!, kind: group.kind!, device: 'cpu', index: 0 };
    await loaded.executor.startInstance!(inst);
    try {
      const [result] = await loaded.executor.execute(inst, [inputs[model]()]);
      assert.equal(result.length, 1);
      assert.equal(result[0].name, config.output![0].name);
      assert.equal(result[0].shape.at(-1), config.output![0].dims!.at(-1));
      assert.deepEqual(loaded.notes, []);
    } finally {
      await loaded.unload();
    }
  });
}
