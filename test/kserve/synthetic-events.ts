// A small, hand-checked event stream shared by the stats and metrics tests.
import type { SchedulerEvent } from '@inferscope/core';

const M = { model: 'mlp', version: '1' };

/** Two batches (sizes 3 and 1), one failed request, one rejected after waiting, one refused at the door. */
export function syntheticStream(): SchedulerEvent[] {
  const ev: SchedulerEvent[] = [];
  const queued = (id: string, t: number, bs = 1) =>
    ev.push({ type: 'request.queued', t, ...M, request_id: id, priority: 1, batch_size: bs, queue_depth: 1 });
  const done = (id: string, batch: string, bs: number, q: number, c: number, ok = true) =>
    ev.push({ type: 'request.completed', t: 1000, ...M, request_id: id, batch_id: batch, priority: 1, batch_size: bs,
      queue_us: q, compute_us: c, total_us: q + c, ok, ...(ok ? {} : { error: 'boom' }) });
  queued('r1', 0, 2);
  queued('r2', 10);
  queued('r3', 20);
  queued('r4', 30);
  queued('r5', 40);
  ev.push({ type: 'batch.formed', t: 100, ...M, batch_id: 'b1', request_ids: ['r1', 'r2'], size: 3, trigger: 'delay', oldest_wait_us: 100 });
  ev.push({ type: 'batch.started', t: 100, ...M, batch_id: 'b1', instance: 'mlp_0_0', size: 3 });
  ev.push({ type: 'batch.completed', t: 300, ...M, batch_id: 'b1', instance: 'mlp_0_0', size: 3, compute_us: 200, ok: true });
  done('r1', 'b1', 2, 100, 200);
  done('r2', 'b1', 1, 90, 200);
  ev.push({ type: 'batch.formed', t: 310, ...M, batch_id: 'b2', request_ids: ['r3'], size: 1, trigger: 'immediate', oldest_wait_us: 290 });
  ev.push({ type: 'batch.completed', t: 360, ...M, batch_id: 'b2', instance: 'mlp_0_1', size: 1, compute_us: 50, ok: true });
  done('r3', 'b2', 1, 290, 50);
  ev.push({ type: 'batch.formed', t: 370, ...M, batch_id: 'b3', request_ids: ['r4'], size: 1, trigger: 'immediate', oldest_wait_us: 340 });
  ev.push({ type: 'batch.completed', t: 400, ...M, batch_id: 'b3', instance: 'mlp_0_1', size: 1, compute_us: 30, ok: false, error: 'boom' });
  done('r4', 'b3', 1, 340, 30, false);
  // refused after waiting in the queue since t=40: the scheduler says how long (queued_us)
  ev.push({ type: 'request.rejected', t: 540, ...M, request_id: 'r5', reason: 'timeout', message: 'Request timeout expired', queued_us: 500 });
  ev.push({ type: 'request.rejected', t: 600, ...M, request_id: 'r6', reason: 'queue_full', message: 'Exceeds maximum queue size' });
  return ev;
}

