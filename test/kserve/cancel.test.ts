// A client that closes its connection before its answer: over a real socket, through the real infer route,
// into core's scheduler on a virtual clock with a hand-driven executor. A request still queued is
// cancelled (request.rejected 'cancelled', counted, no batch slot); one already running completes and its
// answer is dropped. No sleeps: every wait is on an event.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import Fastify from 'fastify';
import { EventBus, type SchedulerEvent, type InferPayload, type InferResult } from '@inferscope/core';
import { VirtualClock } from '@inferscope/core/clock';
import { ModelScheduler } from '@inferscope/core/scheduler';
import type { ModelConfig } from '@inferscope/core/config/types.ts';
import { registerInferRoutes } from '../../apps/server/src/http/kserve-routes';
import type { InferModelSource } from '../../apps/server/src/infer/resolve-model';
import { enqueueCancellable } from '../../apps/server/src/infer/cancellable';
import { ManualExecutor } from '../scheduler/helpers';

const CONFIG: ModelConfig = {
  name: 'm', max_batch_size: 4,
  dynamic_batching: { max_queue_delay_microseconds: 0 },
  instance_group: [{ name: 'g', count: 1, kind: 'KIND_CPU' }],
  input: [{ name: 'IN', data_type: 'TYPE_FP32', dims: [2] }],
  output: [{ name: 'OUT', data_type: 'TYPE_FP32', dims: [2] }],
};

const body = JSON.stringify({ inputs: [{ name: 'IN', datatype: 'FP32', shape: [1, 2], data: [1, 2] }] });

test('a vanished client cancels its queued request; a running one completes and is dropped', { timeout: 30_000 }, async () => {
  const bus = new EventBus();
  const events: SchedulerEvent[] = [];
  const waiters: { until: (e: SchedulerEvent) => boolean; resolve: () => void }[] = [];
  bus.on((e) => {
    events.push(e);
    for (const w of waiters.splice(0)) (w.until(e) ? w.resolve : () => waiters.push(w))();
  });
  const seen = (until: (e: SchedulerEvent) => boolean) => new Promise<void>((resolve) => {
    if (events.some(until)) resolve();
    else waiters.push({ until, resolve });
  });
  const exec = new ManualExecutor();
  const sched = new ModelScheduler<InferPayload, InferResult>({
    model: 'm', version: '1', config: CONFIG, clock: new VirtualClock(), bus,
    executor: exec as unknown as ConstructorParameters<typeof ModelScheduler<InferPayload, InferResult>>[0]['executor'],
  });
  await sched.start();
  const source: InferModelSource = {
    get: () => ({ name: 'm', version: '1', state: 'READY', config: CONFIG }),
    infer: (_n, _v, req, signal) => (signal ? enqueueCancellable(sched, req, signal) : sched.enqueue(req)),
  };
  const app = Fastify();
  registerInferRoutes(app, source);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as { port: number }).port;
  const send = () => {
    const req = httpRequest({ port, host: '127.0.0.1', method: 'POST', path: '/v2/models/m/infer', headers: { 'content-type': 'application/json' } });
    req.on('error', () => { /* the test destroys it */ });
    req.end(body);
    return req;
  };
  try {
    const running = send();
    await seen((e) => e.type === 'batch.started');
    const queued = send();
    await seen((e) => e.type === 'request.queued' && events.filter((x) => x.type === 'request.queued').length === 2);
    queued.destroy();
    await seen((e) => e.type === 'request.rejected');
    const rejected = events.filter((e) => e.type === 'request.rejected');
    assert.equal(rejected.length, 1);
    assert.equal(rejected[0].type === 'request.rejected' && rejected[0].reason, 'cancelled');
    assert.equal(sched.snapshot().stats.rejected.cancelled, 1);
    assert.equal(exec.all.length, 1, 'the cancelled request took no batch slot');

    running.destroy();
    exec.finish();
    await seen((e) => e.type === 'request.completed');
    assert.deepEqual(Object.values(sched.snapshot().queue_depth).reduce((a, b) => a + b, 0), 0, 'nothing left queued');
    assert.equal(events.filter((e) => e.type === 'request.rejected').length, 1, 'the running request completed, not cancelled');
  } finally {
    await app.close();
    await sched.stop();
  }
});
