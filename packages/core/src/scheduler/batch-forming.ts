/**
 * The batcher's loop for one model version: forms batches while one can be formed. A free instance first
 * takes the oldest queued payload (merging as Triton's dequeue does), then the queue's next batch. With
 * every instance busy, where Triton prefetches, the batcher grows its newest payload or queues a new one,
 * up to twice the instance count (payloads.ts). An executor that can take a batch back may be lent the
 * oldest payload early (batch-runner.ts). The same loop serves every executor and the simulator.
 *
 * It owns no queue: the model scheduler's queues and policy (both replaced by live changes) are read
 * through `Forming` at each turn.
 */
import type { Clock } from '../clock/clock';
import { decideBatch } from './decide';
import type { PayloadQueue } from './payloads';
import type { InstancePool } from './instance-pool';
import type { BatchRunner } from './batch-runner';
import type { BatchingPolicy } from './policy';
import type { PriorityQueues } from './priority-queues';
import type { QueueEntry } from './queue-entry';
import type { WakeUp } from './wake-up';

/** What the loop reads of its model scheduler at each turn. */
export interface Forming<P, R> {
  queues(): PriorityQueues<QueueEntry<P, R>>;
  policy(): BatchingPolicy;
  /** unloading: whatever is queued is formed now, without waiting for its delay */
  flushing(): boolean;
  /** after each pass (an unload waits for the queues to drain) */
  passed(): void;
}

export class BatchForming<P, R> {
  private pumping = false;

  constructor(
    private readonly o: Forming<P, R>,
    private readonly clock: Clock,
    private readonly pool: InstancePool,
    private readonly payloads: PayloadQueue<QueueEntry<P, R>>,
    private readonly runner: BatchRunner<P, R>,
    private readonly wakeUp: WakeUp,
  ) {}

  /**
   * Forms batches while one can be formed. `prefetchNow` false (arrivals, completions) leaves growing and
   * queueing payloads to a timer at the current time: requests usually arrive in bursts (the answers of a
   * batch come back as new requests in one turn), and the batcher looks at the burst once it is in, as
   * Triton's batcher thread does once the enqueuing threads let go of its queue. A decision to wait arms
   * the wake-up at its time, whatever the instances are doing: with every instance busy, the delay running
   * out still queues the payload.
   */
  pump(prefetchNow = true): void {
    if (this.pumping) return; // a synchronous completion inside dispatch: the running loop picks it up
    this.pumping = true;
    try {
      const flush = this.o.flushing();
      // (again when an instance freed up meanwhile: an executor may end a batch inside the hand-off)
      do {
        if (this.runner.lent && this.pool.idleCount > 0) this.runner.settleLent(); // a free instance takes it, merging
        this.servePayloads();
        this.formOrGrow(prefetchNow, flush);
      } while (this.pool.idleCount > 0 && this.payloads.size > 0);
      this.lendOldestPayload();
      const deadline = this.o.queues().nextDeadline();
      if (deadline !== Infinity) this.wakeUp.arm(deadline);
    } finally {
      this.pumping = false;
    }
    this.o.passed();
  }

  /** a free instance, or room for another queued payload: an arrival can be taken now */
  canTakeBatch(): boolean {
    return this.pool.idleCount > 0 || this.mayQueuePayload();
  }

  /**
   * The batcher's turn: a batch for each free instance, or, with every instance busy, the newest payload
   * grown or a new one queued, until a decision waits (its wake-up armed) or nothing more may be queued.
   */
  private formOrGrow(prefetchNow: boolean, flush: boolean): void {
    // the queues and policy are read at each use: a batch answered inside the hand-off may change them live
    while (this.o.queues().size > this.payloads.entryCount) {
      const idle = this.pool.idleCount > 0;
      if (idle && this.payloads.size > 0) return; // an instance freed up meanwhile: it takes a payload first (pump)
      if (!idle) {
        if (!this.mayQueuePayload()) break;
        if (!prefetchNow) {
          this.wakeUp.arm(this.clock.now());
          break;
        }
      }
      // with an instance free no payload is queued (servePayloads): the decision is a new batch's
      const growing = idle ? undefined : this.payloads.growing();
      const held = this.payloads.entryCount;
      const d = decideBatch(this.o.queues().after(held), this.o.policy(), this.clock.now(), { flush, payload: growing && { size: growing.size, shapeKey: growing.shapeKey } });
      if (d.kind === 'wait') {
        if (d.shapeCut) this.payloads.cutByShape();
        if (d.saturated) {
          this.payloads.closeGrowing(); // the next request starts the next payload
          continue;
        }
        if (!d.shapeCut) this.wakeUp.arm(d.untilUs);
        break;
      }
      if (!idle) {
        if (growing && this.runner.lent?.entries === growing.entries) {
          // taken back before it grows; an instance that began it meanwhile took it as lent: decide again
          this.runner.settleLent();
          continue;
        }
        this.payloads.add(this.o.queues().peekFirst(held + d.count).slice(held), d);
        continue;
      }
      // (idleCount may count an instance that left the idle list: then look again)
      const inst = this.pool.takeIdle();
      if (inst) this.runner.form(inst, this.o.queues().takeFirst(d.count), d);
    }
  }

  /** every free instance takes the oldest queued payload, with those Triton's dequeue merges into it */
  private servePayloads(): void {
    while (this.pool.idleCount > 0 && this.payloads.size > 0) {
      const inst = this.pool.takeIdle();
      if (!inst) break;
      const taken = this.payloads.take(this.o.policy(), this.clock.now())!;
      this.o.queues().takeHead(taken.entries);
      this.runner.form(inst, taken.entries, taken);
    }
  }

  /**
   * An executor that can take a batch back may be handed the oldest payload early (lent, not formed), but
   * only while it is what the next free instance would take whenever that happens: every instance busy,
   * and no later payload that a dequeue could merge or close. A lent payload that grew or no longer
   * qualifies is taken back (or, begun meanwhile, formed where it runs).
   */
  private lendOldestPayload(): void {
    const lent = this.runner.lent;
    if (lent && lent.entries !== this.lendable()?.entries) this.runner.settleLent();
    const head = this.lendable();
    if (head && !this.runner.lent) this.runner.lend(head.entries as QueueEntry<P, R>[], head);
  }

  // a method, not a closure made on each pass: under tsx every named closure pays a defineProperty (its name)
  private lendable() {
    const head = this.payloads.head();
    return head && this.pool.idleCount === 0 && !this.payloads.mayMerge(this.o.policy()) ? head : undefined;
  }

  private mayQueuePayload(): boolean {
    return this.payloads.mayQueue(this.o.policy().prefetch, this.pool.usableCount);
  }
}
