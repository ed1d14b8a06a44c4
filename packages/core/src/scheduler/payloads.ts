/**
 * The batches queued for an instance while every instance is busy: Triton's payload queue, one per model,
 * where Triton prefetches (BatchingPolicy.prefetch). Learned from Triton's dynamic_batch_scheduler.cc,
 * instance_queue.cc and payload.cc:
 * - the batcher grows its current payload while it is queued: the decision over the requests behind it,
 *   counted from its size (decide.ts, `payload`), says which join; a saturated decision closes it and the
 *   next requests start a new payload. Payloads count toward Triton's cap (twice the instance count), the
 *   growing one too: at the cap nothing grows until an instance takes one;
 * - an instance that frees up takes the oldest payload, and merges into it the following payloads that
 *   have waited longer than max_queue_delay (their oldest request, strictly) while the sum fits
 *   max_batch_size; a payload examined for a merge but too large to join is marked taken and so stops
 *   growing, as in Triton (followed on purpose; a trace in ARCHITECTURE.md). No merge without a delay, with
 *   max_batch_size 1, or into or from a payload cut by a shape.
 *
 * A payload's requests stay in the priority queue until an instance takes it (with prefetch the queue is
 * one FIFO level without timeouts, so the payloads are always its first requests, oldest payload first); a
 * batch is formed (batch.formed) only when an instance takes it. Pure bookkeeping on the virtual clock:
 * `now` is always passed in.
 */
import type { BatchTrigger } from '../events';
import type { BatchDecision } from './decide';
import type { BatchingPolicy } from './policy';
import type { AnyEntry } from './queue-entry';

/** Triton's limit on payloads a model's queue may hold, per instance (rate limiter PayloadSlotAvailable). */
export const PAYLOADS_PER_INSTANCE = 2;

export interface QueuedPayload<E extends AnyEntry> {
  /** replaced, never changed in place: a payload handed early to a busy instance keeps its own array */
  entries: readonly E[];
  /** samples */
  size: number;
  /** when its oldest request was queued (Triton's BatcherStartNs) */
  oldestUs: number;
  shapeKey: string;
  /** why it was sent, or last grew: the trigger of the batch it becomes */
  trigger: BatchTrigger;
  /** takes no more requests: saturated, or examined for a merge */
  closed: boolean;
  /** cut by a request of another shape: never merged */
  shapeCut: boolean;
}

/** What an instance that frees up takes: the oldest payload with the ones merged into it. */
export interface TakenPayload<E extends AnyEntry> {
  entries: E[];
  size: number;
  oldestUs: number;
  trigger: BatchTrigger;
  /** payloads merged into the oldest */
  merged: number;
}

export class PayloadQueue<E extends AnyEntry> {
  private items: QueuedPayload<E>[] = [];

  get size(): number {
    return this.items.length;
  }

  head(): QueuedPayload<E> | undefined {
    return this.items[0];
  }

  /** the payload still growing (the newest, unless it was closed) */
  growing(): QueuedPayload<E> | undefined {
    const last = this.items[this.items.length - 1];
    return last && !last.closed ? last : undefined;
  }

  /** requests held in payloads: the queue's first this many */
  /** whether a payload may be queued or grown while every instance is busy: where Triton prefetches, below its cap */
  mayQueue(prefetch: boolean, usableInstances: number): boolean {
    return prefetch && this.size < PAYLOADS_PER_INSTANCE * usableInstances;
  }

  get entryCount(): number {
    let n = 0;
    for (const p of this.items) n += p.entries.length;
    return n;
  }

  /** `entries` (the queue's next requests) join the growing payload, or start a new one, as `d` decided */
  add(entries: readonly E[], d: Extract<BatchDecision, { kind: 'send' }>): void {
    const p = this.growing();
    if (p) {
      p.entries = [...p.entries, ...entries];
      p.size += d.size;
      p.oldestUs = Math.min(p.oldestUs, d.oldestUs);
      p.trigger = d.trigger;
      p.closed = d.saturated;
      p.shapeCut ||= d.shapeCut;
      return;
    }
    this.items.push({
      entries: [...entries], size: d.size, oldestUs: d.oldestUs, shapeKey: entries[0].shapeKey, trigger: d.trigger,
      closed: d.saturated, shapeCut: d.shapeCut,
    });
  }

  /** the request behind the growing payload has another shape: the payload takes nothing more */
  cutByShape(): void {
    const p = this.growing();
    if (p) p.shapeCut = true;
  }

  /** the request behind the growing payload would pass max_batch_size: the payload is done */
  closeGrowing(): void {
    const p = this.growing();
    if (p) p.closed = true;
  }

  /**
   * Whether taking the oldest payload could merge or close another one (so it is what an instance takes only
   * if it is the only one): Triton's merge conditions, less the time test.
   */
  mayMerge(policy: BatchingPolicy): boolean {
    const [head, next] = this.items;
    return !!next && policy.maxQueueDelayUs > 0 && policy.maxBatchSize > 1 && !head.shapeCut && !next.shapeCut;
  }

  /** An instance takes the oldest payload at `nowUs`, merging as Triton's dequeue does. */
  take(policy: BatchingPolicy, nowUs: number): TakenPayload<E> | undefined {
    const head = this.items.shift();
    if (!head) return undefined;
    const out: TakenPayload<E> = { entries: [...head.entries], size: head.size, oldestUs: head.oldestUs, trigger: head.trigger, merged: 0 };
    if (policy.maxQueueDelayUs <= 0 || policy.maxBatchSize <= 1 || head.shapeCut) return out;
    for (let next = this.items[0]; next && !next.shapeCut && nowUs - next.oldestUs > policy.maxQueueDelayUs; next = this.items[0]) {
      next.closed = true; // examined: Triton marks it taken before it checks the size
      if (out.size + next.size > policy.maxBatchSize || next.shapeKey !== head.shapeKey) break;
      this.items.shift();
      out.entries.push(...next.entries);
      out.size += next.size;
      out.oldestUs = Math.min(out.oldestUs, next.oldestUs);
      out.merged++;
    }
    return out;
  }

  /** a request left the queue while in a payload (cancelled): it leaves its payload too */
  remove(e: E): boolean {
    for (let i = 0; i < this.items.length; i++) {
      const p = this.items[i];
      const at = p.entries.indexOf(e);
      if (at < 0) continue;
      p.entries = p.entries.filter((x) => x !== e);
      p.size -= e.batchSize;
      if (p.entries.length === 0) this.items.splice(i, 1);
      else p.oldestUs = Math.min(...p.entries.map((x) => x.enqueuedUs));
      return true;
    }
    return false;
  }

  /** the oldest payload began on the instance it was handed to early: it is no longer queued */
  dropHead(entries: readonly AnyEntry[]): void {
    if (this.items[0]?.entries === entries) this.items.shift();
  }

  /** forget every payload (their requests stay queued): a live change or a failure decides afresh */
  clear(): void {
    this.items = [];
  }
}
