/**
 * Per-priority-level queues with Triton's queue policy bookkeeping. Each level holds fresh requests in
 * arrival order followed by requests a DELAY timeout moved to the back. Removal from the middle (a timeout)
 * only flags the entry; walks skip flagged entries and heads advance past them, so every operation on the
 * hot path is O(1) amortised.
 */
import type { AnyEntry, CandidateSource } from './queue-entry';
import { MinHeap } from '../util/min-heap';

/**
 * A DELAY timeout moves an entry from the fresh lane to the delayed lane without splicing the fresh array,
 * so each lane only counts entries whose `delayed` flag matches it.
 */
class Lane<E extends AnyEntry> {
  items: E[] = [];
  head = 0;
  live = 0;
  constructor(readonly holdsDelayed: boolean) {}

  has(e: E): boolean {
    return e.queued && e.delayed === this.holdsDelayed;
  }

  push(e: E): void {
    this.items.push(e);
    this.live++;
  }

  /** drop flagged entries at the head and compact the array now and then */
  tidy(): void {
    const items = this.items;
    while (this.head < items.length && !this.has(items[this.head])) this.head++;
    if (this.head === items.length) {
      this.items = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > items.length) {
      this.items = items.slice(this.head);
      this.head = 0;
    }
  }
}

class Level<E extends AnyEntry> {
  fresh = new Lane<E>(false);
  delayed = new Lane<E>(true);
  get size(): number {
    return this.fresh.live + this.delayed.live;
  }
}

export class PriorityQueues<E extends AnyEntry = AnyEntry> implements CandidateSource<E> {
  private levels: Level<E>[] = [];
  // Earliest deadline first; entries that left the queue stay until they reach the top (lazy removal).
  private readonly deadlines = new MinHeap<E>((a, b) => a.deadlineUs < b.deadlineUs);
  size = 0;

  constructor(levelCount: number) {
    for (let i = 0; i < levelCount; i++) this.levels.push(new Level<E>());
  }

  get levelCount(): number {
    return this.levels.length;
  }

  levelSize(level: number): number {
    return this.levels[level - 1].size;
  }

  /** add a queued entry at the back of its level (its delayed lane when already delayed) */
  push(e: E): void {
    const level = this.levels[e.level - 1];
    (e.delayed ? level.delayed : level.fresh).push(e);
    this.size++;
    if (e.deadlineUs > 0) this.deadlines.push(e);
  }

  forEachInOrder(visit: (e: E) => boolean): void {
    for (const level of this.levels) {
      if (level.size === 0) continue;
      for (const lane of [level.fresh, level.delayed]) {
        const items = lane.items;
        for (let i = lane.head; i < items.length; i++) {
          const e = items[i];
          if (lane.has(e) && !visit(e)) return;
        }
      }
    }
  }

  /** remove and return the first `n` waiting entries in service order */
  takeFirst(n: number): E[] {
    const out: E[] = [];
    for (const level of this.levels) {
      for (const lane of [level.fresh, level.delayed]) {
        const items = lane.items;
        while (out.length < n && lane.head < items.length) {
          const e = items[lane.head++];
          if (!lane.has(e)) continue;
          e.queued = false;
          lane.live--;
          this.size--;
          out.push(e);
        }
        lane.tidy();
        if (out.length === n) return out;
      }
    }
    return out;
  }

  /** take an entry out wherever it is (timeout reject, drain) */
  remove(e: E): void {
    if (!e.queued) return;
    e.queued = false;
    const level = this.levels[e.level - 1];
    (e.delayed ? level.delayed : level.fresh).live--;
    this.size--;
    level.fresh.tidy();
    level.delayed.tidy();
  }

  /** DELAY timeout action: behind every fresh request of its level, and no further timeout */
  moveToDelayed(e: E): void {
    if (!e.queued || e.delayed) return;
    const level = this.levels[e.level - 1];
    level.fresh.live--;
    e.delayed = true;
    e.deadlineUs = 0;
    level.fresh.tidy();
    level.delayed.push(e);
  }

  /** earliest live deadline, or Infinity */
  nextDeadline(): number {
    const h = this.deadlines;
    for (let top = h.peek(); top && (!top.queued || top.deadlineUs === 0); top = h.peek()) h.pop();
    return h.peek()?.deadlineUs ?? Infinity;
  }

  /** entries whose deadline is <= now, earliest first (removed from the deadline heap, still queued) */
  popExpired(nowUs: number): E[] {
    const out: E[] = [];
    while (this.nextDeadline() <= nowUs) out.push(this.deadlines.pop()!);
    return out;
  }

  depthByLevel(): Record<string, number> {
    const out: Record<string, number> = {};
    this.levels.forEach((l, i) => (out[String(i + 1)] = l.size));
    return out;
  }

  /** every waiting entry in service order (for drain and reconfiguration) */
  all(): E[] {
    const out: E[] = [];
    this.forEachInOrder((e) => (out.push(e), true));
    return out;
  }
}

/**
 * The same entries in queues of `levels` levels (a live change of priority_levels): every entry gets the
 * level `levelOf` maps its old one to, and service order within a level stays acceptance order.
 */
export function relevelled<E extends AnyEntry>(old: PriorityQueues<E>, levels: number, levelOf: (level: number) => number): PriorityQueues<E> {
  const next = new PriorityQueues<E>(levels);
  for (const e of old.all().sort((a, b) => a.seq - b.seq)) {
    e.level = levelOf(e.level);
    next.push(e);
  }
  return next;
}
