/**
 * The dynamic batcher's decision, as a pure function of (waiting requests, policy, now, the queued payload it
 * would grow). Triton's GetDynamicBatch, learned from dynamic_batch_scheduler.cc: with no payload it decides a
 * new batch; with a payload queued for an instance (prefetch, every instance busy: payloads.ts) it decides
 * which of the requests behind it join that payload, the same rules counted from the payload's size.
 *
 * Rules:
 * - no dynamic batching / max_batch_size 0: each request is a batch on its own ('immediate');
 * - requests join in service order while the samples fit max_batch_size and their shape key matches the
 *   first one (or the payload's) ('max_batch' / 'shape' close the batch);
 * - each time payload + running size equals a preferred size, that prefix is remembered, so the largest
 *   preferred size reachable wins; the first time the next request would overshoot the largest preferred
 *   size, the running size is remembered instead (capped: it could never grow into a preferred size), and
 *   the payload is done growing;
 * - a remembered prefix is sent at once unless the oldest waiting request already waited max_queue_delay,
 *   in which case everything examined goes ('delay'); a batch at or past the largest preferred size goes too;
 * - max_queue_delay 0 sends whatever is pending now; otherwise wait until the oldest has waited the delay;
 * - a queued payload that is at no preferred size takes whatever is waiting (Triton grows it even when no
 *   preferred size can be found, so the instance that takes it gets the largest batch there is).
 *
 * Triton's quirk #8141 is followed on purpose: "remembered" is a size, and size 0 counts as none, so a payload
 * whose very next request overshoots the largest preferred size remembers nothing and takes that request
 * (one request past the largest preferred size; a trace in ARCHITECTURE.md). `payload_saturated_` is `saturated`
 * here: the payload takes no more requests, and the batcher starts a new one.
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
   * saturated: the batch (or the payload it grows) takes no more requests (Triton's `payload_saturated_`):
   * cut by max_batch_size or a shape, capped, past the largest preferred size, at a preferred size with no
   * delay, or there is no dynamic batching. A batch reaching the largest preferred size exactly is not
   * saturated while there is a delay: queued for a busy instance, it may still grow (payloads.ts).
   * shapeCut: cut by a request of another shape (Triton's Payload::MarkSaturated): never merged at dequeue.
   */
  | { kind: 'send'; count: number; size: number; trigger: BatchTrigger; oldestUs: number; saturated: boolean; shapeCut: boolean }
  /**
   * untilUs = Infinity when nothing is waiting, or when the first request behind the payload cannot join
   * it: past max_batch_size (`saturated`: the payload is done, that request starts the next one) or of
   * another shape (`shapeCut`: the payload can take nothing more, and unless it is also saturated that
   * request waits until an instance takes it, as Triton's batcher spins on it)
   */
  | { kind: 'wait'; untilUs: number; count: number; size: number; oldestUs: number; shapeCut?: boolean; saturated?: boolean };

/** The payload queued for an instance that the decision grows (Triton's current payload). */
export interface GrowingPayload {
  /** samples already in it (> 0) */
  size: number;
  shapeKey: string;
}

export interface DecideOptions {
  /** unload / drain: never wait, flush what is pending with trigger 'drain' */
  flush?: boolean;
  /** decide what joins this queued payload instead of a new batch */
  payload?: GrowingPayload;
}

const NO_WAIT = { kind: 'wait', untilUs: Infinity, count: 0, size: 0, oldestUs: Infinity } as const;

/** Triton fills in preferred_batch_size [max_batch_size] when none is given. */
function isPreferred(preferred: readonly number[], maxBatch: number, n: number): boolean {
  return preferred.length > 0 ? preferred.includes(n) : n === maxBatch;
}

export function decideBatch(
  source: CandidateSource,
  policy: BatchingPolicy,
  nowUs: number,
  options?: DecideOptions,
): BatchDecision {
  const base = options?.payload?.size ?? 0;
  let count = 0;
  let size = 0;
  let oldest = Infinity;
  let shapeKey = options?.payload?.shapeKey ?? '';
  let stop: BatchTrigger | null = null;
  let bestCount = 0;
  let bestSize = 0;
  let bestOldest = Infinity;
  /** the next request would overshoot the largest preferred size: the batch can never reach a larger one */
  let capped = false;
  const preferred = policy.preferred;
  const maxPreferred = policy.maxPreferred;
  const maxBatch = policy.maxBatchSize;
  const batching = policy.batching;

  source.forEachInOrder((c: BatchCandidate) => {
    const bs = c.batchSize > 0 ? c.batchSize : 1;
    if (base + count === 0) {
      shapeKey = c.shapeKey;
    } else {
      const next = base + size + bs;
      // bestSize 0 means "none" even when it was remembered at 0 (#8141, see the file comment)
      if (bestSize === 0 && next > maxPreferred) {
        capped = true;
        bestCount = count;
        bestSize = size;
        bestOldest = oldest;
      }
      if (next > maxBatch) {
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
    if (isPreferred(preferred, maxBatch, base + size)) {
      bestCount = count;
      bestSize = size;
      bestOldest = oldest;
    }
    if (base + size >= maxBatch) {
      stop = 'max_batch';
      return false;
    }
    return true;
  });

  const trigger = stop as BatchTrigger | null;
  const shapeCut = trigger === 'shape';
  if (count === 0) return shapeCut || capped ? { ...NO_WAIT, shapeCut, saturated: capped } : NO_WAIT;
  if (trigger === 'immediate') return { kind: 'send', count, size, trigger, oldestUs: oldest, saturated: true, shapeCut };

  const delay = policy.maxQueueDelayUs;
  const delayExceeded = delay > 0 && nowUs >= oldest + delay;
  if (bestSize > 0 && !delayExceeded) {
    const total = base + bestSize;
    const t: BatchTrigger = preferred.length === 0 || (total === maxBatch && !preferred.includes(total)) ? 'max_batch' : 'preferred';
    // a preferred size with a delay may still grow while it waits for an instance (Triton does not saturate it)
    return { kind: 'send', count: bestCount, size: bestSize, trigger: t, oldestUs: bestOldest, saturated: capped || delay === 0, shapeCut: false };
  }
  // cut by max_batch_size or a shape, or at or past the largest preferred size: everything examined goes
  if (trigger !== null || base + size >= maxPreferred) {
    const t: BatchTrigger = trigger ?? (delayExceeded ? 'delay' : 'preferred');
    return { kind: 'send', count, size, trigger: t, oldestUs: oldest, saturated: true, shapeCut };
  }
  if (delayExceeded) return { kind: 'send', count, size, trigger: 'delay', oldestUs: oldest, saturated: capped, shapeCut };
  if (delay === 0) return { kind: 'send', count, size, trigger: 'immediate', oldestUs: oldest, saturated: capped, shapeCut };
  if (options?.flush) return { kind: 'send', count, size, trigger: 'drain', oldestUs: oldest, saturated: true, shapeCut };
  // a queued payload at no preferred size takes what is waiting, so its instance gets the largest batch there is
  if (base > 0 && !isPreferred(preferred, maxBatch, base)) return { kind: 'send', count, size, trigger: 'delay', oldestUs: oldest, saturated: false, shapeCut };
  return { kind: 'wait', untilUs: oldest + delay, count, size, oldestUs: oldest };
}
