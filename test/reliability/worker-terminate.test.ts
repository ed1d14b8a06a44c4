/**
 * Removing an instance (a lower instance count) or unloading the model while its instances are running
 * batches: what we guarantee is that the batches already handed to onnxruntime finish, every accepted
 * request gets exactly one answer, and no worker thread is ever terminated.
 *
 * Why "never terminated": onnxruntime-node throws a C++ Napi::Error when its thread is terminated while
 * inside session.run, which ends in std::terminate, so Worker.terminate() mid-run aborts the WHOLE server
 * process (exit 134), not only the instance. InstanceWorker.close() therefore waits for the batches it
 * was sent and, past its grace period, detaches the thread instead of terminating it
 * (apps/server/src/backends/onnxruntime/instance-worker.ts, executor.ts). This file spies on
 * Worker.prototype.terminate to prove nothing in the server calls it on these paths.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import type { BatchCompletedEvent, BatchStartedEvent, InferPayload, SchedulerEvent, SchedulerRequest, Tensor } from '@inferscope/core';
import { startServer, tempRepository, type Running } from './harness.ts';

const M = 'mlp_classifier';
const VERSION = '2';
const terminations: string[] = [];
const realTerminate = Worker.prototype.terminate;
let server: Running;
let repo: { dir: string; remove(): Promise<void> };

before(async () => {
  Worker.prototype.terminate = function (this: Worker, ...args: Parameters<Worker['terminate']>) {
    terminations.push(new Error('Worker.terminate called').stack ?? '');
    return realTerminate.apply(this, args);
  };
  repo = await tempRepository([M]);
  server = await startServer({ repositories: [repo.dir], controlMode: 'explicit', loadModels: [M] });
});

after(async () => {
  await server?.close();
  await repo?.remove();
  Worker.prototype.terminate = realTerminate;
});

function request(rows: number): SchedulerRequest<InferPayload> {
  const data = new Float32Array(rows * 784);
  for (let i = 0; i < data.length; i++) data[i] = ((i * 37) % 101) / 101;
  return { batchSize: rows, shapeKey: '', payload: { inputs: [{ name: 'input', datatype: 'FP32', shape: [rows, 784], data }] } };
}

/** Sends `n` requests of 16 rows; resolves with each one's outcome (every promise settles exactly once). */
function sendMany(n: number): { outcomes: Promise<({ ok: true; rows: number } | { ok: false; error: string })[]>; settled: () => number } {
  let settled = 0;
  const all = Array.from({ length: n }, () =>
    server.manager.infer(M, VERSION, request(16)).then(
      (out: Tensor[]) => ({ ok: true as const, rows: out[0].shape[0] }),
      (err: unknown) => ({ ok: false as const, error: String(err) }),
    ).finally(() => settled++),
  );
  return { outcomes: Promise.all(all), settled: () => settled };
}

/** Resolves at the next batch.started of the model (event-driven: no fixed sleep). */
function nextBatchStart(): Promise<BatchStartedEvent> {
  return new Promise((resolve) => {
    const off = server.bus.on((e: SchedulerEvent) => {
      if (e.type === 'batch.started' && e.model === M && e.version === VERSION) {
        off();
        resolve(e);
      }
    });
  });
}

/** The first event since index `from` that matches (already seen, or the next one to come). */
function eventSince(from: number, match: (e: SchedulerEvent) => boolean): Promise<SchedulerEvent> {
  const seen = server.events.slice(from).find(match);
  if (seen) return Promise.resolve(seen);
  return new Promise((resolve) => {
    const off = server.bus.on((e: SchedulerEvent) => {
      if (!match(e)) return;
      off();
      resolve(e);
    });
  });
}

/** Every batch that started since `from` completed, successfully, on the instance it started on. */
function assertStartedBatchesCompleted(from: number): void {
  const events = server.events.slice(from);
  const started = events.filter((e): e is BatchStartedEvent => e.type === 'batch.started' && e.model === M);
  const completed = new Map(events.filter((e): e is BatchCompletedEvent => e.type === 'batch.completed' && e.model === M).map((e) => [e.batch_id, e]));
  assert.ok(started.length > 0);
  for (const s of started) {
    const c = completed.get(s.batch_id);
    assert.ok(c, `batch ${s.batch_id} started on ${s.instance} and never completed`);
    assert.equal(c.ok, true, `batch ${s.batch_id}: ${c.error}`);
    assert.equal(c.instance, s.instance);
  }
}

test('lowering the instance count while both instances run batches: the batches finish, every request is answered, no worker is terminated', async () => {
  assert.equal(server.manager.get(M, VERSION)!.config.instance_group?.[0].count, 2);
  const from = server.events.length;
  const started = nextBatchStart();
  const { outcomes } = sendMany(60);
  await started;
  const mark = server.events.length;
  await server.manager.setInstanceCount(M, VERSION, undefined, 1, 'test');
  const results = await outcomes;
  assert.equal(results.length, 60);
  assert.deepEqual(results.filter((r) => !r.ok), [], 'a lower instance count fails no request');
  // the removed instance was running a batch when the change was asked for, and that batch finished. It
  // stops once its worker has closed, which may come after the last answer on a slow host: wait for it.
  const removed = await eventSince(mark, (e) => e.type === 'instance.state' && e.model === M && e.state === 'stopped');
  assert.ok(removed.type === 'instance.state');
  const events = server.events;
  const runningThen = events.slice(from, mark).filter((e): e is BatchStartedEvent => e.type === 'batch.started' && e.instance === removed.instance)
    .filter((s) => !events.slice(from, mark).some((c) => c.type === 'batch.completed' && c.batch_id === s.batch_id));
  assert.ok(runningThen.length > 0, `${removed.instance} had no batch in flight when it was removed`);
  for (const s of runningThen) assert.ok(events.slice(mark).some((c) => c.type === 'batch.completed' && c.batch_id === s.batch_id && c.ok));
  assert.ok(results.every((r) => r.ok && r.rows === 16));
  assertStartedBatchesCompleted(from);
  const stopped = server.events.slice(from).filter((e) => e.type === 'instance.state' && e.model === M && e.version === VERSION && e.state === 'stopped');
  assert.equal(stopped.length, 1, 'one instance was removed');
  assert.deepEqual(terminations, [], 'no worker thread was terminated');
  // the remaining instance keeps serving
  const [after] = await server.manager.infer(M, VERSION, request(3));
  assert.deepEqual(after.shape, [3, 10]);
});

test('unloading the model while it runs batches: running batches finish, every accepted request gets exactly one answer, no worker is terminated', async () => {
  const from = server.events.length;
  const started = nextBatchStart();
  const { outcomes, settled } = sendMany(60);
  await started;
  assert.ok(settled() < 60, 'the unload starts while requests are still waiting');
  await server.manager.unload(M);
  const results = await outcomes;
  assert.equal(results.length, 60);
  // Unloading drains: whatever was queued is flushed as batches and answered, not dropped.
  assert.deepEqual(results.filter((r) => !r.ok), [], 'the drain answers every queued request');
  assertStartedBatchesCompleted(from);
  const finals = new Map<string, number>();
  for (const e of server.events.slice(from)) {
    if (e.type === 'request.queued' && e.model === M) finals.set(e.request_id, finals.get(e.request_id) ?? 0);
    if ((e.type === 'request.completed' || e.type === 'request.rejected') && e.model === M) finals.set(e.request_id, (finals.get(e.request_id) ?? 0) + 1);
  }
  assert.ok(finals.size >= 60);
  assert.ok([...finals.values()].every((n) => n === 1), 'exactly one final event per queued request');
  assert.deepEqual(terminations, [], 'no worker thread was terminated');
  // After the unload new requests are refused with a clear error, and nothing hangs.
  await assert.rejects(server.manager.infer(M, VERSION, request(1)), /mlp_classifier/);
});
