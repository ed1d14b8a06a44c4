/**
 * OrtExecutor with prefetch 1 on the real onnxruntime backend (bundled mlp_classifier): an instance is
 * handed a second batch while it runs the first. Both go to its worker at once; the worker runs them in
 * order. When the worker dies during the first, the second (which never began) is sent once more to the
 * restarted worker and succeeds. Never Worker.terminate() a busy worker: it aborts the process.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import type { InferPayload, InferResult, SchedulerRequest } from '@inferscope/core';
import type { OrtExecutor } from '../../apps/server/src/backends/onnxruntime/executor';
import { REPO, assertClose, floats, instance, loadModel, mlpConfig, request, runDirect } from './fixtures';
import '../support/test-hooks.ts';

const MODEL_FILE = join(REPO, 'mlp_classifier/1/model.onnx');
const sample = (rows: number, salt: number) => request([{ name: 'input', datatype: 'FP32', shape: [rows, 784], data: floats(rows, 784, salt) }]);

interface Call {
  /** how often `done` was called: must end at 1 */
  calls: number;
  /** settles at the first call */
  result: Promise<InferResult[]>;
}

/** executeWithCallback, counting calls to `done` */
function send(ex: OrtExecutor, inst: ReturnType<typeof instance>, batch: SchedulerRequest<InferPayload>[], order: string[], label: string): Call {
  const call: Call = { calls: 0, result: undefined as unknown as Promise<InferResult[]> };
  call.result = new Promise((resolve, reject) => {
    ex.executeWithCallback(inst, batch, (err, results) => {
      call.calls++;
      order.push(label);
      if (err) reject(err);
      else resolve(results!);
    });
  });
  return call;
}

/** each request's probabilities equal onnxruntime run directly on that request alone */
async function assertMatchesDirect(batch: SchedulerRequest<InferPayload>[], results: InferResult[]): Promise<void> {
  assert.equal(results.length, batch.length);
  for (let i = 0; i < batch.length; i++) {
    const input = batch[i].payload.inputs[0];
    const rows = input.shape[0];
    const direct = await runDirect(MODEL_FILE, { input: new ort.Tensor('float32', input.data as Float32Array, [rows, 784]) });
    assert.deepEqual(results[i][0].shape, [rows, 10]);
    assertClose(results[i][0].data as Float32Array, direct.probabilities.data as Float32Array);
  }
}

/** one started instance of the bundled mlp model on the real backend, unloaded afterwards */
async function withMlpInstance(body: (ex: OrtExecutor, inst: ReturnType<typeof instance>, logs: string[]) => Promise<void>): Promise<void> {
  const { loaded, logs } = await loadModel('mlp_classifier', mlpConfig());
  const ex = loaded.executor as OrtExecutor;
  const inst = instance('mlp_classifier_0_0');
  await ex.startInstance(inst);
  try {
    await body(ex, inst, logs);
  } finally {
    await loaded.unload();
  }
}

/**
 * A barrier instead of a sleep: one more batch through the same instance. The worker answers in the order
 * it was handed batches, so a second (wrong) answer to any earlier batch would reach its callback before
 * this one comes back.
 */
const afterOneMoreRoundTrip = async (ex: OrtExecutor, inst: ReturnType<typeof instance>): Promise<void> => {
  await ex.execute(inst, [sample(1, 99)]);
};
/** a batch never answered must fail the test, not hang the file */
const limit = { timeout: 30_000 };

test('OrtExecutor declares prefetch 1; two back-to-back batches on one instance both come back correct, in order', limit, async () => {
  await withMlpInstance(async (ex, inst) => {
    assert.equal(ex.prefetch, 1);
    const worker = ex.workerOf(inst.name)!;
    const batchA = [sample(16, 1), sample(3, 2)];
    const batchB = [sample(1, 3), sample(5, 4), sample(2, 5)];
    const order: string[] = [];
    const a = send(ex, inst, batchA, order, 'A');
    const b = send(ex, inst, batchB, order, 'B');
    assert.equal(worker.inFlight, 2, 'both batches were posted to the worker at once');
    const [ra, rb] = await Promise.all([a.result, b.result]);
    await assertMatchesDirect(batchA, ra);
    await assertMatchesDirect(batchB, rb);
    assert.deepEqual(order, ['A', 'B'], 'answered in the order handed over');
    await afterOneMoreRoundTrip(ex, inst);
    assert.deepEqual([a.calls, b.calls], [1, 1]);
    assert.equal(ex.workerOf(inst.name), worker, 'no restart');
    assert.equal(ex.describe()[0].restarts, 0);
  });
});

for (const how of ['exit', 'throw'] as const) {
  test(`a worker that dies (${how}) during the running batch: it fails; the prefetched one is re-sent to the restarted worker and succeeds`, limit, async () => {
    await withMlpInstance(async (ex, inst, logs) => {
      const first = ex.workerOf(inst.name)!;
      const batchA = [sample(4, 11)];
      const batchB = [sample(2, 12), sample(3, 13)];
      const order: string[] = [];
      // the crash message is queued before the batches, so the worker dies with A in flight and B behind it
      first.crash(how);
      const a = send(ex, inst, batchA, order, 'A');
      const b = send(ex, inst, batchB, order, 'B');
      assert.equal(first.inFlight, 2);
      await assert.rejects(a.result, how === 'throw' ? /crashed: instance crashed on request/ : /exited with code 3/);
      const rb = await b.result;
      await assertMatchesDirect(batchB, rb);
      // B run normally (on the restarted worker) gives the same outputs
      const again = await ex.execute(inst, batchB);
      for (let i = 0; i < batchB.length; i++) assertClose(rb[i][0].data as Float32Array, again[i][0].data as Float32Array, 0);
      await afterOneMoreRoundTrip(ex, inst);
      assert.deepEqual([a.calls, b.calls], [1, 1], 'nothing answered twice');
      assert.deepEqual(order, ['A', 'B']);
      assert.notEqual(ex.workerOf(inst.name), first);
      assert.equal(ex.describe()[0].restarts, 1, 'one restart serves the re-sent batch');
      assert.ok(logs.some((l) => /restarting instance mlp_classifier_0_0/.test(l)), logs.join('\n'));
      // the payloads were not consumed by the dead worker: A can still be run
      await assertMatchesDirect(batchA, await ex.execute(inst, batchA));
    });
  });
}

test('a worker that dies with two batches queued behind the running one: both never-begun batches succeed on the restarted worker', limit, async () => {
  await withMlpInstance(async (ex, inst) => {
    const first = ex.workerOf(inst.name)!;
    const batches = [[sample(1, 21)], [sample(2, 22)], [sample(3, 23)]];
    const order: string[] = [];
    first.crash('exit');
    const calls = batches.map((batch, i) => send(ex, inst, batch, order, `b${i}`));
    await assert.rejects(calls[0].result, /exited with code 3/);
    await assertMatchesDirect(batches[1], await calls[1].result);
    await assertMatchesDirect(batches[2], await calls[2].result);
    await afterOneMoreRoundTrip(ex, inst);
    assert.deepEqual(calls.map((c) => c.calls), [1, 1, 1]);
    assert.deepEqual(order.slice(1), ['b1', 'b2'], 're-sent batches keep their order');
    assert.equal(ex.describe()[0].restarts, 1);
  });
});

test('a batch handed over while the first failure is being answered runs after the re-sent one', limit, async () => {
  await withMlpInstance(async (ex, inst) => {
    const first = ex.workerOf(inst.name)!;
    const batchA = [sample(2, 31)];
    const batchB = [sample(3, 32)];
    const batchC = [sample(4, 33)];
    const order: string[] = [];
    first.crash('throw');
    let c: Call | undefined;
    // as the scheduler does: hearing that A failed, it hands the instance its next batch (C) at once
    const a = new Promise<void>((resolve) =>
      ex.executeWithCallback(inst, batchA, (err) => {
        order.push(err ? 'A failed' : 'A ok');
        c = send(ex, inst, batchC, order, 'C');
        resolve();
      }),
    );
    const b = send(ex, inst, batchB, order, 'B');
    await a;
    await assertMatchesDirect(batchB, await b.result);
    await assertMatchesDirect(batchC, await c!.result);
    await afterOneMoreRoundTrip(ex, inst);
    assert.deepEqual(order, ['A failed', 'B', 'C'], 'the never-begun B keeps its place ahead of C');
    assert.deepEqual([b.calls, c!.calls], [1, 1]);
    assert.equal(ex.describe()[0].restarts, 1);
  });
});

test('reclaim: a batch held behind running ones is taken back before the worker begins it, never run there and never answered; one already answered is not', limit, async () => {
  await withMlpInstance(async (ex, inst) => {
    const worker = ex.workerOf(inst.name)!;
    const order: string[] = [];
    const ahead = [1, 2, 3].map((i) => [sample(64, 40 + i)]);
    const calls = ahead.map((batch, i) => send(ex, inst, batch, order, `A${i}`));
    // the worker stops after the batches ahead, so the held one has certainly not begun when it is taken
    // back (a loaded machine could otherwise let the thread get through all three first)
    const release = worker.hold();
    const held = [sample(5, 44)];
    const h = send(ex, inst, held, order, 'H');
    assert.equal(worker.inFlight, 4);
    assert.equal(ex.reclaim(inst, held), true, 'not begun: taken back');
    assert.equal(worker.inFlight, 3);
    assert.equal(ex.reclaim(inst, held), false, 'only once');
    release();
    for (const [i, c] of calls.entries()) await assertMatchesDirect(ahead[i], await c.result);
    await afterOneMoreRoundTrip(ex, inst);
    assert.equal(h.calls, 0, 'a reclaimed batch is never answered by this instance');
    assert.deepEqual(order, ['A0', 'A1', 'A2']);
    assert.equal(ex.reclaim(inst, ahead[0]), false, 'an answered batch cannot be taken back');
    // the worker skipped it and goes on serving: the same requests run fine when sent again
    await assertMatchesDirect(held, await ex.execute(inst, held));
    assert.equal(ex.workerOf(inst.name), worker, 'no restart');
    assert.equal(worker.inFlight, 0);
  });
});
