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
 *   capped there (it could never grow into a preferred size), and a batch already at or above the largest
 *   preferred size goes at once for the same reason (Triton's test_static_batch_gt_max_preferred); both
 *   are reported as 'preferred';
 * - a remembered preferred prefix is sent at once unless the oldest request already waited
 *   max_queue_delay, in which case everything pending goes ('delay');
 * - max_queue_delay 0 sends whatever is pending now; otherwise wait until the oldest has waited the delay.
 *
 * The delay test is `now >= oldest + delay`, the very sum the wait is armed for: `now - oldest >= delay`
 * can be false at that instant in floating point (fractional times), and a virtual clock would then fire
 * the same timer forever.
 */
import type { BatchTrigger } from '../events';
import type { BatchingPolicy } from './policy';
import type { BatchCandidate, CandidateSource } from './queue-entry';

export type BatchDecision =
  /**
   * saturated: the batch could not grow even if it waited (Triton's `payload_saturated_`): it is full or
   * capped, cut by a shape change, at a preferred size with no delay, at or past the largest preferred
   * size, or there is no dynamic batching. Only a saturated batch may be formed while every instance is
   * busy; any other keeps growing in the queue until an instance is free, as Triton's queued payload does.
   */
  | { kind: 'send'; count: number; size: number; trigger: BatchTrigger; oldestUs: number; saturated: boolean }
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
  /** the next request would overshoot the largest preferred size: the batch can never reach a larger one */
  let capped = false;
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
        capped = true;
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
  if (trigger === 'immediate') return { kind: 'send', count, size, trigger, oldestUs: oldest, saturated: true };
  if (capAtPreferred && bestCount === 0 && size >= policy.maxPreferred) {
    bestCount = count;
    bestSize = size;
    bestOldest = oldest;
  }

  const delay = policy.maxQueueDelayUs;
  const delayExceeded = delay > 0 && nowUs >= oldest + delay;
  // what is sent can no longer grow: cut by max_batch_size or a shape, capped, or at the largest preferred size
  const full = trigger !== null || capped || size >= policy.maxPreferred;
  if (bestCount > 0 && !delayExceeded) {
    const t: BatchTrigger = bestSize === maxBatch && !preferred.includes(bestSize) ? 'max_batch' : 'preferred';
    // a smaller preferred size with a delay may still grow into a larger one (Triton does not saturate it)
    const saturated = capped || delay === 0 || bestSize >= policy.maxPreferred;
    return { kind: 'send', count: bestCount, size: bestSize, trigger: t, oldestUs: bestOldest, saturated };
  }
  if (trigger !== null) return { kind: 'send', count, size, trigger, oldestUs: oldest, saturated: true };
  if (delayExceeded) return { kind: 'send', count, size, trigger: 'delay', oldestUs: oldest, saturated: full };
  if (delay === 0) return { kind: 'send', count, size, trigger: 'immediate', oldestUs: oldest, saturated: full };
  if (options?.flush) return { kind: 'send', count, size, trigger: 'drain', oldestUs: oldest, saturated: true };
  return { kind: 'wait', untilUs: oldest + delay, count, size, oldestUs: oldest };
}

/**
 * Whether a batch may be formed while no instance is free, to wait in the model's queue of formed
 * batches (Triton's payload queue): only where Triton prefetches (BatchingPolicy.prefetch) and only a
 * batch that could not grow anyway (`saturated`), so forming it early changes neither its size nor its
 * place in the order.
 */
export function mayFormWhileBusy(d: Extract<BatchDecision, { kind: 'send' }>, policy: BatchingPolicy): boolean {
  return policy.prefetch && (d.saturated || !policy.batching);
}
