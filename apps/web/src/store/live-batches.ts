/**
 * A batch's life in the live picture, from its batch.formed to its batch.completed: the requests it
 * took leave their queue, the instance it runs on is drawn busy with it (or waiting for it, when it was
 * handed to a busy instance to run next), and a completed batch becomes a bar on the timeline.
 */
import type { BatchCompletedEvent, BatchFormedEvent, BatchStartedEvent } from '@inferscope/core';
import type { Ring } from './ring';
import type { BatchLive, ModelLive, RequestLive } from './live-types';
import { modelKey } from './live-types';

/** What of the live picture a batch's events change (LiveModel's fields). */
export interface BatchFold {
  models: Map<string, ModelLive>;
  requests: Map<string, RequestLive>;
  /** batches formed and not yet completed */
  batches: Map<string, BatchLive>;
  timeline: Ring<BatchLive>;
}

/** A queued request left its model's queue (taken into a batch, answered, or refused): one fewer at its level. */
export function leftQueue(m: ModelLive, priority: number): void {
  m.queued.set(priority, Math.max(0, (m.queued.get(priority) ?? 0) - 1));
}

export function batchFormed(s: BatchFold, e: BatchFormedEvent): void {
  const key = modelKey(e.model, e.version);
  const m = s.models.get(key);
  for (const id of e.request_ids) {
    const r = s.requests.get(`${key}/${id}`);
    if (!r) continue;
    if (m && r.phase === 'queued') leftQueue(m, r.priority);
    r.phase = 'batched';
    r.batchId = e.batch_id;
    r.tBatched = e.t;
  }
  s.batches.set(`${key}/${e.batch_id}`, {
    id: e.batch_id, modelKey: key, size: e.size, requests: e.request_ids.length, trigger: e.trigger,
    oldestWaitUs: e.oldest_wait_us, tFormed: e.t, requestKeys: e.request_ids.map((id) => `${key}/${id}`),
  });
  if (e.next_on) {
    // handed to a busy instance to run next: show it waiting there until its batch.started
    const inst = m?.instances.get(e.next_on);
    if (inst) Object.assign(inst, { nextBatchId: e.batch_id, nextSize: e.size });
  }
}

export function batchStarted(s: BatchFold, e: BatchStartedEvent): void {
  const key = modelKey(e.model, e.version);
  const b = s.batches.get(`${key}/${e.batch_id}`);
  if (b) {
    b.instance = e.instance;
    b.tStarted = e.t;
  }
  const inst = s.models.get(key)?.instances.get(e.instance);
  if (inst) {
    Object.assign(inst, { state: 'busy', batchId: e.batch_id, batchSize: e.size, batchStart: e.t });
    if (inst.nextBatchId === e.batch_id) Object.assign(inst, { nextBatchId: undefined, nextSize: undefined });
  }
  for (const id of b?.requestKeys ?? []) {
    const r = s.requests.get(id);
    if (r) {
      r.phase = 'running';
      r.instance = e.instance;
      r.tStarted = e.t;
    }
  }
}

export function batchCompleted(s: BatchFold, e: BatchCompletedEvent): void {
  const key = modelKey(e.model, e.version);
  const id = `${key}/${e.batch_id}`;
  const b = s.batches.get(id) ?? {
    id: e.batch_id, modelKey: key, size: e.size, requests: 0, trigger: 'immediate' as const, oldestWaitUs: 0, tFormed: e.t - e.compute_us, requestKeys: [],
  };
  b.instance = e.instance;
  b.tStarted ??= e.t - e.compute_us;
  b.tDone = e.t;
  b.computeUs = e.compute_us;
  b.ok = e.ok;
  s.batches.delete(id);
  b.requestKeys = []; // the timeline keeps only the bar, not the request list
  s.timeline.push(b);
  const inst = s.models.get(key)?.instances.get(e.instance);
  if (inst && inst.batchId === e.batch_id) {
    inst.batchId = undefined;
    inst.batchSize = undefined;
    if (inst.state === 'busy') inst.state = 'idle';
  }
}
