import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ModelAggregator } from './aggregator';
import type { SchedulerEvent } from '../events';

const base = { model: 'm', version: '1' };
const queued = (t: number, id: string, protocol?: 'http' | 'grpc'): SchedulerEvent =>
  ({ ...base, type: 'request.queued', t, request_id: id, priority: 1, batch_size: 1, queue_depth: 1, ...(protocol ? { protocol } : {}) });

test('arrivals by protocol: totals since the start, rates over the window, refusals before queueing counted', () => {
  const a = new ModelAggregator(1_000_000, 'm', '1');
  a.add(queued(0, 'a', 'http'));
  a.add(queued(100_000, 'b', 'grpc'));
  a.add(queued(200_000, 'c', 'grpc'));
  a.add(queued(300_000, 'd'));
  // refused at the front end (never queued) and refused after queueing (timeout: already counted)
  a.add({ ...base, type: 'request.rejected', t: 400_000, request_id: 'e', reason: 'invalid', message: 'bad', protocol: 'grpc' });
  a.add({ ...base, type: 'request.rejected', t: 500_000, request_id: 'c', reason: 'timeout', message: 'late', queued_us: 300_000 });
  let s = a.snapshot(1_000_000);
  assert.deepEqual(Object.fromEntries(Object.entries(s.arrivals!).map(([k, v]) => [k, v.total])), { http: 1, grpc: 3, in_process: 1 });
  assert.ok(Math.abs(s.arrivals!.grpc.per_s - 3 / s.window_s) < 1e-9);
  // two seconds later the window is empty, the totals stay
  s = a.snapshot(3_500_000);
  assert.equal(s.arrivals!.grpc.total, 3);
  assert.equal(s.arrivals!.grpc.per_s, 0);
  assert.equal(s.arrivals!.http.per_s, 0);
});
