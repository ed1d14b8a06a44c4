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
    while (this.head < items.length && !this.has(items[this.head])) items[this.head++] = undefined as unknown as E;
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
  /**
   * Only levels holding entries (and the default level, kept so the common one-level case never allocates
   * per batch), so priority_levels can be 2^32 at no cost: a level costs memory only while in use.
   */
  private readonly byLevel = new Map<number, Level<E>>();
  /** the keys of `byLevel`, ascending: the service order */
  private order: number[] = [];
  // Earliest deadline first, equal deadlines in acceptance order (a DELAY moves them to the delayed lane in
  // the order they expire, which must be arrival order, as Triton walks its queue). Entries that left the
  // queue stay until they reach the top (lazy removal), or until they outnumber the waiting entries: then
  // the heap is rebuilt, so a batched request with a long timeout is not held (tensors and all) behind a
  // waiting one with a short timeout.
  private readonly deadlines = new MinHeap<E>((a, b) => a.deadlineUs < b.deadlineUs || (a.deadlineUs === b.deadlineUs && a.seq < b.seq));
  size = 0;

  /** the default level's queues, never dropped: the hot path (one level) skips the map lookup */
  private readonly kept: Level<E>;

  constructor(private readonly keptLevel = 1) {
    this.kept = this.levelOf(keptLevel);
  }

  /** levels currently holding entries or kept (not the configured count: that may be 2^32) */
  get levelsInUse(): number {
    return this.order.length;
  }

  levelSize(level: number): number {
    return level === this.keptLevel ? this.kept.size : (this.byLevel.get(level)?.size ?? 0);
  }

  /** add a queued entry at the back of its level (its delayed lane when already delayed) */
  push(e: E): void {
    const level = e.level === this.keptLevel ? this.kept : this.levelOf(e.level);
    (e.delayed ? level.delayed : level.fresh).push(e);
    this.size++;
    if (e.deadlineUs > 0) {
      this.deadlines.push(e);
      if (this.deadlines.size > 2 * this.size + 64) this.deadlines.retain((d) => d.queued && d.deadlineUs > 0);
    }
  }

  /** the waiting requests after the first `skip`, in order (those ahead are held in queued payloads) */
  after(skip: number): CandidateSource<E> {
    if (skip === 0) return this;
    const queues = this;
    // a method, not an arrow property: under tsx an arrow bound to a name pays a defineProperty per call
    return {
      forEachInOrder(visit) {
        let n = 0;
        queues.forEachInOrder((e) => n++ < skip || visit(e));
      },
    };
  }

  forEachInOrder(visit: (e: E) => boolean): void {
    for (const key of this.order) {
      const level = this.byLevel.get(key)!;
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

  /** the first `n` waiting entries in service order, left in the queue */
  peekFirst(n: number): E[] {
    const out: E[] = [];
    if (n > 0) this.forEachInOrder((e) => (out.push(e), out.length < n));
    return out;
  }

  /** remove `entries`, which must be the first waiting entries (a lent batch being formed) */
  takeHead(entries: readonly AnyEntry[]): void {
    const taken = this.takeFirst(entries.length);
    if (taken.length !== entries.length || taken.some((e, i) => e !== entries[i])) {
      throw new Error('a lent batch is no longer the head of its queue'); // an invariant, not input
    }
  }

  /** remove and return the first `n` waiting entries in service order */
  takeFirst(n: number): E[] {
    const out: E[] = [];
    for (let k = 0; k < this.order.length && out.length < n; k++) {
      const key = this.order[k];
      const level = this.byLevel.get(key)!;
      for (const lane of [level.fresh, level.delayed]) {
        const items = lane.items;
        while (out.length < n && lane.head < items.length) {
          const e = items[lane.head];
          // the slot is cleared: an entry that left must not stay reachable from a long-lived array
          items[lane.head++] = undefined as unknown as E;
          if (!lane.has(e)) continue;
          e.queued = false;
          lane.live--;
          this.size--;
          out.push(e);
        }
        lane.tidy();
        if (out.length === n) break;
      }
      if (this.dropIfEmpty(key, level)) k--;
    }
    return out;
  }

  /** take an entry out wherever it is (timeout reject, drain) */
  remove(e: E): void {
    if (!e.queued) return;
    e.queued = false;
    const level = e.level === this.keptLevel ? this.kept : this.byLevel.get(e.level)!;
    (e.delayed ? level.delayed : level.fresh).live--;
    this.size--;
    level.fresh.tidy();
    level.delayed.tidy();
    this.dropIfEmpty(e.level, level);
  }

  /** DELAY timeout action: behind every fresh request of its level, and no further timeout */
  moveToDelayed(e: E): void {
    if (!e.queued || e.delayed) return;
    const level = this.byLevel.get(e.level)!;
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

  /** waiting requests per level, for the levels that hold any (never one entry per configured level) */
  depthByLevel(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const key of this.order) {
      const n = this.byLevel.get(key)!.size;
      if (n > 0) out[String(key)] = n;
    }
    return out;
  }

  /** every waiting entry in service order (for drain and reconfiguration) */
  all(): E[] {
    const out: E[] = [];
    this.forEachInOrder((e) => (out.push(e), true));
    return out;
  }

  private levelOf(key: number): Level<E> {
    let level = this.byLevel.get(key);
    if (level) return level;
    level = new Level<E>();
    this.byLevel.set(key, level);
    // binary search for the insertion point: the levels in use are few, but stay sorted
    let lo = 0;
    let hi = this.order.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.order[mid] < key) lo = mid + 1;
      else hi = mid;
    }
    this.order.splice(lo, 0, key);
    return level;
  }

  /** forget an emptied level (not the kept one); true when it was removed from `order` */
  private dropIfEmpty(key: number, level: Level<E>): boolean {
    if (level.size > 0 || key === this.keptLevel) return false;
    this.byLevel.delete(key);
    this.order.splice(this.order.indexOf(key), 1);
    return true;
  }
}

/**
 * The same entries in fresh queues (a live change of priority_levels or default_priority_level): every entry gets the
 * level `levelOf` maps its old one to, and service order within a level stays acceptance order.
 */
export function relevelled<E extends AnyEntry>(old: PriorityQueues<E>, defaultLevel: number, levelOf: (level: number) => number): PriorityQueues<E> {
  const next = new PriorityQueues<E>(defaultLevel);
  for (const e of old.all().sort((a, b) => a.seq - b.seq)) {
    e.level = levelOf(e.level);
    next.push(e);
  }
  return next;
}
