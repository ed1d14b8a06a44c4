/**
 * The dynamic batcher's decision, as a pure function of (waiting requests, policy, now). The loop that
 * commits decisions (ModelScheduler) only calls it when an instance is free, so a batch that waits for an
 * instance keeps growing until one takes it.
 *
 * Rules (learned from Triton's dynamic batcher):
 * - no dynamic batching / max_batch_size 0: each request is a batch on its own ('immediate');
 * - requests join in service order while the samples fit max_batch_size and their shape key matches the
 *   first one ('max_batch' / 'shape' close the batch);
 * - each time the running size equals a preferred size, that prefix is remembered, so the largest preferred
 *   size reachable wins; when the next request would overshoot the largest preferred size, the batch is
 *   capped there (it could never grow into a preferred size);
 * - a remembered preferred prefix is sent at once unless the oldest request already waited
 *   max_queue_delay, in which case everything pending goes ('delay');
 * - max_queue_delay 0 sends whatever is pending now; otherwise wait until the oldest has waited the delay.
 */
import type { BatchTrigger } from '../events';
import type { BatchingPolicy } from './policy';
import type { BatchCandidate, CandidateSource } from './queue-entry';

export type BatchDecision =
  | { kind: 'send'; count: number; size: number; trigger: BatchTrigger; oldestUs: number }
  /** untilUs = Infinity when nothing is waiting */
  | { kind: 'wait'; untilUs: number; count: number; size: number; oldestUs: number };

export interface DecideOptions {
  /** unload / drain: never wait, flush what is pending with trigger 'drain' */
  flush?: boolean;
}

export function decideBatch(
  source: CandidateSource,
  policy: BatchingPolicy,
  nowUs: number,
  options?: DecideOptions,
): BatchDecision {
  let count = 0;
  let size = 0;
  let oldest = Infinity;
  let shapeKey = '';
  let stop: BatchTrigger | null = null;
  let bestCount = 0;
  let bestSize = 0;
  let bestOldest = Infinity;
  const preferred = policy.preferred;
  const capAtPreferred = preferred.length > 0;
  const maxBatch = policy.maxBatchSize;
  const batching = policy.batching;

  source.forEachInOrder((c: BatchCandidate) => {
    const bs = c.batchSize > 0 ? c.batchSize : 1;
    if (count === 0) {
      shapeKey = c.shapeKey;
    } else {
      if (capAtPreferred && bestCount === 0 && size + bs > policy.maxPreferred) {
        bestCount = count;
        bestSize = size;
        bestOldest = oldest;
      }
      if (size + bs > maxBatch) {
        stop = 'max_batch';
        return false;
      }
      if (c.shapeKey !== shapeKey) {
        stop = 'shape';
        return false;
      }
    }
    count++;
    size += bs;
    if (c.enqueuedUs < oldest) oldest = c.enqueuedUs;
    if (!batching) {
      stop = 'immediate';
      return false;
    }
    if (capAtPreferred && preferred.includes(size)) {
      bestCount = count;
      bestSize = size;
      bestOldest = oldest;
    }
    if (size >= maxBatch) {
      stop = 'max_batch';
      return false;
    }
    return true;
  });

  if (count === 0) return { kind: 'wait', untilUs: Infinity, count: 0, size: 0, oldestUs: Infinity };
  const trigger = stop as BatchTrigger | null;
  if (trigger === 'immediate') return { kind: 'send', count, size, trigger, oldestUs: oldest };

  const delay = policy.maxQueueDelayUs;
  const delayExceeded = delay > 0 && nowUs - oldest >= delay;
  if (bestCount > 0 && !delayExceeded) {
    const t: BatchTrigger = bestSize === maxBatch && !preferred.includes(bestSize) ? 'max_batch' : 'preferred';
    return { kind: 'send', count: bestCount, size: bestSize, trigger: t, oldestUs: bestOldest };
  }
  if (trigger !== null) return { kind: 'send', count, size, trigger, oldestUs: oldest };
  if (delayExceeded) return { kind: 'send', count, size, trigger: 'delay', oldestUs: oldest };
  if (delay === 0) return { kind: 'send', count, size, trigger: 'immediate', oldestUs: oldest };
  if (options?.flush) return { kind: 'send', count, size, trigger: 'drain', oldestUs: oldest };
  return { kind: 'wait', untilUs: oldest + delay, count, size, oldestUs: oldest };
}
