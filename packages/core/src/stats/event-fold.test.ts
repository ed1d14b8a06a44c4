import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SchedulerEvent } from '../events';
import { EventFold } from './event-fold';
import { LogHistogram } from './histogram';

const base = { t: 0, model: 'm', version: '1' };
const queued = (id: string, version = '1'): SchedulerEvent => ({ ...base, version, type: 'request.queued', request_id: id, priority: 1, batch_size: 1, queue_depth: 0 });
const done = (id: string, total: number, ok = true): Extract<SchedulerEvent, { type: 'request.completed' }> => ({ ...base, type: 'request.completed', request_id: id, batch_id: 'b', priority: 1, batch_size: 1, queue_us: 10, compute_us: total - 10, total_us: total, ok });
const batch = (size: number, compute: number, ok = true): SchedulerEvent => ({ ...base, type: 'batch.completed', batch_id: 'b', instance: 'i', size, compute_us: compute, ok });
const rejected = (id: string): SchedulerEvent => ({ ...base, type: 'request.rejected', request_id: id, reason: 'queue_full', message: 'full' });
const timedOut = (id: string): SchedulerEvent => ({ ...base, type: 'request.rejected', request_id: id, reason: 'timeout', message: 'Request timeout expired', queued_us: 50 });

test('a fold counts arrivals, answers, failures, refusals and batches the way every reader needs', () => {
  const f = new EventFold({ models: new Set(['m']) });
  for (const e of [queued('a'), queued('b'), queued('d'), done('a', 110), done('b', 510, false), rejected('c'), timedOut('d'), batch(2, 90), batch(4, 120), batch(2, 70), batch(8, 999, false)]) f.add(e);
  f.add({ ...(done('x', 1e6) as Extract<SchedulerEvent, { type: 'request.completed' }>), model: 'other' });
  assert.equal(f.arrivals, 3);
  assert.equal(f.completed, 1);
  assert.equal(f.failed, 2, 'b failed running and d timed out in the queue; c, refused before queueing, is no failure (Triton)');
  assert.equal(f.rejected, 2);
  assert.equal(f.timed, 2, 'the refused requests have no queue or compute time');
  assert.equal(f.queueSumUs, 20);
  assert.equal(f.computeSumUs, 600);
  assert.equal(f.batches, 3, 'a batch that errored is not a batch of work done');
  assert.equal(f.avgBatchSize, 8 / 3);
  assert.equal(f.busyUs, 280);
  assert.deepEqual(f.bySize, { 2: [2, 160], 4: [1, 120] });
  assert.deepEqual(f.batchHistogram(), { 2: 2, 4: 1 });
  assert.ok(Math.abs(f.latency.percentile(0.99) - 110) <= 1.1);
});

test('a version filter keeps the other versions out', () => {
  const f = new EventFold({ models: new Set(['m']), version: '2' });
  f.add(queued('a', '1'));
  f.add(queued('b', '2'));
  assert.equal(f.arrivals, 1);
});

test('countAbove counts what percentile would report above the limit', () => {
  const h = new LogHistogram();
  for (let v = 1; v <= 1000; v++) h.add(v);
  assert.equal(h.countAbove(2000), 0);
  assert.equal(h.countAbove(0), 1000);
  const above500 = h.countAbove(500);
  assert.ok(Math.abs(above500 - 500) <= 10, `${above500}`);
});
