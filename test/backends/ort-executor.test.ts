import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import type { Tensor } from '@inferscope/core';
import { REPO, assertClose, floats, instance, loadModel, mlpConfig, request, runDirect, textConfig } from './fixtures';

test('a batch of mixed request sizes gives what onnxruntime gives on each request alone', async () => {
  const { loaded, ledger } = await loadModel('mlp_classifier', mlpConfig());
  const inst = instance('mlp_classifier_0_0');
  await loaded.executor.startInstance!(inst);
  try {
    const sizes = [1, 3, 2];
    const inputs = sizes.map((n, k) => floats(n, 784, k));
    const batch = inputs.map((data, k) =>
      request([{ name: 'input', datatype: 'FP32', shape: [sizes[k], 784], data }]),
    );
    const results = await loaded.executor.execute(inst, batch);
    assert.equal(results.length, 3);
    const file = join(REPO, 'mlp_classifier/1/model.onnx');
    for (let k = 0; k < sizes.length; k++) {
      const [out] = results[k];
      assert.equal(out.name, 'probabilities');
      assert.equal(out.datatype, 'FP32');
      assert.deepEqual(out.shape, [sizes[k], 10]);
      const direct = await runDirect(file, { input: new ort.Tensor('float32', inputs[k], [sizes[k], 784]) });
      assertClose(out.data as Float32Array, direct.probabilities.data as Float32Array);
    }
    // the caller's input buffers were copied, not transferred away
    assert.equal(inputs[0].length, 784);
    const mem = ledger.snapshot().find((d) => d.device === 'cpu');
    assert.equal(mem?.entries.length, 1);
    assert.ok(mem!.entries[0].bytes > 0);
  } finally {
    await loaded.unload();
  }
  assert.equal(ledger.used('cpu'), 0, 'unload releases the memory');
});

test('variable-length int64 inputs batch when their lengths agree', async () => {
  const { loaded } = await loadModel('text_encoder', textConfig());
  const inst = instance('text_encoder_0_0');
  await loaded.executor.startInstance!(inst);
  try {
    const a = BigInt64Array.from([1n, 5n, 9n, 200n, 2047n]);
    const b = BigInt64Array.from([7n, 7n, 7n, 7n, 7n, 3n, 4n, 5n, 6n, 8n]);
    const results = await loaded.executor.execute(inst, [
      request([{ name: 'token_ids', datatype: 'INT64', shape: [1, 5], data: a }]),
      request([{ name: 'token_ids', datatype: 'INT64', shape: [2, 5], data: b }]),
    ]);
    const file = join(REPO, 'text_encoder/1/model.onnx');
    const da = await runDirect(file, { token_ids: new ort.Tensor('int64', a, [1, 5]) });
    const db = await runDirect(file, { token_ids: new ort.Tensor('int64', b, [2, 5]) });
    assert.deepEqual(results[0][0].shape, [1, 64]);
    assert.deepEqual(results[1][0].shape, [2, 64]);
    assertClose(results[0][0].data as Float32Array, da.embedding.data as Float32Array);
    assertClose(results[1][0].data as Float32Array, db.embedding.data as Float32Array);
    // different lengths cannot share a batch: a clear error, the instance keeps working
    await assert.rejects(
      loaded.executor.execute(inst, [
        request([{ name: 'token_ids', datatype: 'INT64', shape: [1, 5], data: a }]),
        request([{ name: 'token_ids', datatype: 'INT64', shape: [1, 3], data: a.slice(0, 3) }]),
      ]),
      /differ beyond the batch dimension/,
    );
    // a token id outside the vocabulary fails inside onnxruntime: that batch gets the error, nothing else
    await assert.rejects(
      loaded.executor.execute(inst, [request([{ name: 'token_ids', datatype: 'INT64', shape: [1, 2], data: BigInt64Array.from([1n, 5000n]) }])]),
      /out of (data )?bounds|invalid|range/i,
    );
    const again = await loaded.executor.execute(inst, [request([{ name: 'token_ids', datatype: 'INT64', shape: [1, 5], data: a }])]);
    assertClose(again[0][0].data as Float32Array, da.embedding.data as Float32Array);
  } finally {
    await loaded.unload();
  }
});

test('wrong datatype, wrong shape and unknown outputs are refused with a clear error', async () => {
  const { loaded } = await loadModel('mlp_classifier', mlpConfig());
  const inst = instance('mlp_classifier_0_0');
  await loaded.executor.startInstance!(inst);
  try {
    const ok: Tensor = { name: 'input', datatype: 'FP32', shape: [1, 784], data: floats(1, 784, 0) };
    await assert.rejects(
      loaded.executor.execute(inst, [request([{ ...ok, datatype: 'FP64', data: new Float64Array(784) }])]),
      /data-type is 'FP64', but model 'mlp_classifier' expects 'FP32'/,
    );
    await assert.rejects(
      loaded.executor.execute(inst, [request([{ ...ok, shape: [1, 100], data: new Float32Array(100) }])]),
      /unexpected shape for input 'input'.*Expected \[-1,784\], got \[1,100\]/,
    );
    await assert.rejects(loaded.executor.execute(inst, [request([ok], ['logits'])]), /unexpected inference output 'logits'/);
    const [res] = await loaded.executor.execute(inst, [request([ok], ['probabilities'])]);
    assert.equal(res.length, 1);
  } finally {
    await loaded.unload();
  }
});

test('reshape: clients send dims, the model gets reshape.shape, and outputs go back as dims', async () => {
  const config = mlpConfig({
    input: [{ name: 'input', data_type: 'TYPE_FP32', dims: [28, 28], reshape: { shape: [784] } }],
    output: [{ name: 'probabilities', data_type: 'TYPE_FP32', dims: [2, 5], reshape: { shape: [10] } }],
  });
  const { loaded } = await loadModel('mlp_classifier', config);
  const inst = instance('mlp_classifier_0_0');
  await loaded.executor.startInstance!(inst);
  try {
    const data = floats(2, 784, 9);
    const [res] = await loaded.executor.execute(inst, [request([{ name: 'input', datatype: 'FP32', shape: [2, 28, 28], data }])]);
    assert.deepEqual(res[0].shape, [2, 2, 5]);
    const direct = await runDirect(join(REPO, 'mlp_classifier/1/model.onnx'), { input: new ort.Tensor('float32', data, [2, 784]) });
    assertClose(res[0].data as Float32Array, direct.probabilities.data as Float32Array);
  } finally {
    await loaded.unload();
  }
});
