/**
 * The direct strategy's batch decision for one instance, a pure function of its slot queues' fronts
 * (Triton's DirectSequenceBatch::BatcherThread): each slot is a fixed batch position; the batch spans slots
 * 0..highest ready slot, a slot with nothing ready (or a front whose shapes differ from the first ready
 * request's) gets a null request; with max_queue_delay_microseconds and minimum_slot_utilization both set,
 * the batch waits until enough slots are ready or the oldest front has waited the delay.
 *
 * The delay test is `now >= oldest + delay` (Triton's is `now - oldest > delay` on a spinning thread; on a
 * virtual clock the strict test would re-arm the same timer at that instant forever).
 */

/** What the decision needs of a slot's first queued request. */
export interface SlotFront {
  enqueuedUs: number;
  shapeKey: string;
}

export interface DirectOptions {
  maxQueueDelayUs: number;
  minimumSlotUtilization: number;
  /** max(1, max_batch_size): Triton divides the ready count by it, not by the slot count */
  maxBatchSize: number;
}

export type DirectDecision =
  | { kind: 'idle' }
  | { kind: 'wait'; untilUs: number; ready: number }
  /** `take[i]`: slot i's front joins; false = a null request at position i. `waited`: sent because of the delay */
  | { kind: 'send'; take: boolean[]; ready: number; oldestUs: number; waited: boolean };

export function decideDirect(fronts: readonly (SlotFront | undefined)[], o: DirectOptions, nowUs: number): DirectDecision {
  let last = -1;
  let ready = 0;
  let oldestUs = Infinity;
  let shapeKey: string | undefined;
  for (let i = 0; i < fronts.length; i++) {
    const f = fronts[i];
    if (!f) continue;
    last = i;
    ready++;
    oldestUs = Math.min(oldestUs, f.enqueuedUs);
    shapeKey ??= f.shapeKey;
  }
  if (last < 0) return { kind: 'idle' };
  let waited = false;
  if (o.maxQueueDelayUs > 0 && o.minimumSlotUtilization > 0) {
    const full = ready / o.maxBatchSize >= o.minimumSlotUtilization;
    if (!full) {
      if (nowUs < oldestUs + o.maxQueueDelayUs) return { kind: 'wait', untilUs: oldestUs + o.maxQueueDelayUs, ready };
      waited = true;
    }
  }
  const take: boolean[] = [];
  for (let i = 0; i <= last; i++) take.push(fronts[i] !== undefined && fronts[i]!.shapeKey === shapeKey);
  return { kind: 'send', take, ready: take.filter(Boolean).length, oldestUs, waited };
}
