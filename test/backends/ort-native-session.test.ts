/**
 * The worker's fast path (worker.mjs "blocking loop" on onnxruntime-node's native session): it must be
 * what the pinned onnxruntime-node gives us, it must answer exactly as the public API does, and a worker
 * without the wake word must still serve through the public API (the fallback for another ORT layout).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { loadNativeBinding } from '../../apps/server/src/backends/onnxruntime/native-session.mjs';
import { InstanceWorker, type WorkerOutput } from '../../apps/server/src/backends/onnxruntime/instance-worker';
import { REPO, assertClose, floats, runDirect } from './fixtures';

const MLP = join(REPO, 'mlp_classifier', '1', 'model.onnx');
const TEXT = join(REPO, 'text_encoder', '1', 'model.onnx');
const OPTIONS = { intraOpNumThreads: 1, interOpNumThreads: 1 };

test('the pinned onnxruntime-node offers the native session the blocking loop needs', () => {
  assert.ok(loadNativeBinding(), 'onnxruntime-node/dist/binding.js changed shape: the worker would fall back to the slower event loop');
});

test('a worker on the blocking loop answers exactly as onnxruntime run directly (FP32 and INT64 inputs)', async () => {
  for (const [file, feed, fetch] of [
    [MLP, { name: 'input', type: 'float32', dims: [3, 784], data: floats(3, 784, 7) }, 'probabilities'],
    [TEXT, { name: 'token_ids', type: 'int64', dims: [2, 5], data: BigInt64Array.from([1n, 5n, 9n, 2n, 0n, 3n, 3n, 8n, 1n, 4n]) }, 'embedding'],
  ] as const) {
    const w = new InstanceWorker('native test', () => undefined);
    try {
      const ready = await w.init({ modelFile: file, options: OPTIONS, executionProviders: ['cpu'] });
      assert.equal(ready.loop, 'blocking');
      const expected = await runDirect(file, { [feed.name]: new ort.Tensor(feed.type, feed.data.slice(), [...feed.dims]) });
      const got = await w.run([{ ...feed, dims: [...feed.dims], data: feed.data.slice() }], [fetch]);
      assert.deepEqual(got.outputs[0].dims, [...expected[fetch].dims]);
      assertClose(got.outputs[0].data as Float32Array, expected[fetch].data as Float32Array);
    } finally {
      await w.close();
    }
  }
});

test('a bad batch on the blocking loop is a runError for that batch only; the worker keeps serving', async () => {
  const w = new InstanceWorker('native test', () => undefined);
  try {
    await w.init({ modelFile: MLP, options: OPTIONS, executionProviders: ['cpu'] });
    await assert.rejects(w.run([{ name: 'input', type: 'float32', dims: [1, 5], data: new Float32Array(5) }], ['probabilities']), /input|dimension|shape/i);
    const ok = await w.run([{ name: 'input', type: 'float32', dims: [1, 784], data: floats(1, 784, 1) }], ['probabilities']);
    assert.deepEqual(ok.outputs[0].dims, [1, 10]);
  } finally {
    await w.close();
  }
});

test('without the wake word the worker serves on its event loop through the public API, same answers', async () => {
  const w = new Worker(new URL('../../apps/server/src/backends/onnxruntime/worker.mjs', import.meta.url));
  const next = () => new Promise<Record<string, unknown>>((resolve) => w.once('message', resolve));
  try {
    w.postMessage({ type: 'init', modelFile: MLP, options: OPTIONS, executionProviders: ['cpu'] });
    const ready = await next();
    assert.equal(ready.type, 'ready');
    assert.equal(ready.loop, 'event');
    const data = floats(2, 784, 3);
    w.postMessage({ type: 'run', id: 1, feeds: [{ name: 'input', type: 'float32', dims: [2, 784], data: data.slice() }], fetches: ['probabilities'] });
    const result = await next();
    assert.equal(result.type, 'result');
    const expected = await runDirect(MLP, { input: new ort.Tensor('float32', data, [2, 784]) });
    assertClose((result.outputs as WorkerOutput[])[0].data as Float32Array, expected.probabilities.data as Float32Array);
  } finally {
    w.postMessage({ type: 'close' });
    await new Promise((resolve) => w.once('exit', resolve));
  }
});

test('the crash hook on the event loop: the thread dies in the next batch it takes, not before', async () => {
  // the hook is obeyed only where the harness asks for it (workerData.testHooks, see instance-worker.ts)
  const w = new Worker(new URL('../../apps/server/src/backends/onnxruntime/worker.mjs', import.meta.url), { workerData: { testHooks: true } });
  const messages: Record<string, unknown>[] = [];
  w.on('message', (m) => messages.push(m));
  const died = new Promise<Error>((resolve) => w.once('error', resolve));
  const exited = new Promise((resolve) => w.once('exit', resolve));
  w.postMessage({ type: 'init', modelFile: MLP, options: OPTIONS, executionProviders: ['cpu'] });
  w.postMessage({ type: 'crash', how: 'throw' });
  w.postMessage({ type: 'measure', id: 1 }); // not a batch: the thread is still alive to answer it
  w.postMessage({ type: 'run', id: 2, feeds: [{ name: 'input', type: 'float32', dims: [1, 784], data: floats(1, 784, 1) }], fetches: ['probabilities'] });
  assert.match((await died).message, /instance crashed on request/);
  await exited;
  assert.deepEqual(messages.map((m) => m.type), ['ready', 'measured'], 'no result and no runError for the batch it died in');
});
