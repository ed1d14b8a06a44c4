/**
 * Which sequence holds which slot, and who waits for one: Triton's sequence_to_batcherseqslot_map_,
 * ready_batcher_seq_slots_, backlog_queues_ and sequence_to_backlog_map_ (SequenceBatchScheduler). Pure
 * bookkeeping, no time and no batches: the scheduler asks it where a request goes and tells it when a slot
 * is released.
 *
 * Free slots are handed out lowest slot index first (Triton's priority queue orders by slot alone); among
 * instances with the same free index, the earliest-started instance first, so sequences spread over the
 * instances before they share one instance's batch.
 */
import type { CorrelationId } from './types';

export interface SlotRef {
  /** the instance's position in start order */
  readonly instance: number;
  readonly index: number;
}

export interface Backlog<E> {
  readonly key: string;
  readonly id: CorrelationId;
  readonly entries: E[];
  /** the earliest request timeout of its requests (µs on the clock), Infinity without one */
  expiresUs: number;
}

export class SlotTable<E> {
  private readonly free: SlotRef[] = [];
  /** sequence key -> its slot, from START until its END is enqueued (or it is force-ended) */
  readonly bound = new Map<string, SlotRef>();
  /** sequences waiting for a slot, oldest first (an ended one stays until it gets a slot) */
  readonly backlog: Backlog<E>[] = [];
  /** sequence key -> its backlog queue while more of its requests may come (not after END) */
  readonly collecting = new Map<string, Backlog<E>>();

  addFree(ref: SlotRef): void {
    let i = this.free.length;
    while (i > 0 && before(ref, this.free[i - 1]!)) i--;
    this.free.splice(i, 0, ref);
  }

  takeFree(): SlotRef | undefined {
    return this.free.shift();
  }

  get freeCount(): number {
    return this.free.length;
  }

  /**
   * A released slot goes to the oldest backlogged sequence (returned: its requests move into the slot), or
   * back to the free slots. A sequence whose backlog does not end with END stays bound to the slot.
   */
  release(ref: SlotRef, endsWithEnd: (e: E) => boolean): Backlog<E> | undefined {
    const next = this.backlog.shift();
    if (!next) {
      this.addFree(ref);
      return undefined;
    }
    const last = next.entries[next.entries.length - 1];
    if (last === undefined || !endsWithEnd(last)) {
      this.collecting.delete(next.key);
      this.bound.set(next.key, ref);
    }
    return next;
  }

  /** drop a backlog queue (timed out, cancelled) */
  dropBacklog(b: Backlog<E>): void {
    const i = this.backlog.indexOf(b);
    if (i >= 0) this.backlog.splice(i, 1);
    if (this.collecting.get(b.key) === b) this.collecting.delete(b.key);
  }
}

function before(a: SlotRef, b: SlotRef): boolean {
  return a.index < b.index || (a.index === b.index && a.instance < b.instance);
}
