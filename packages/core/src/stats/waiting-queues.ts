/**
 * Which requests are waiting, per priority level, as the event stream tells it: ids arrive with
 * `request.queued` and leave with `batch.formed` or `request.rejected`. The aggregator needs only the
 * depth per level, once a second, but must stay exact.
 *
 * Why not a Map from id to level: that costs a hash insert and delete per request on the scheduler's hot
 * path. Requests leave a level almost always from its front (batches take the oldest first), and the
 * very string that was queued comes back in `batch.formed`, so a FIFO per level with a head index answers
 * the common case with one identity comparison. The rare out-of-order leave (DELAY policy, a later level
 * first, a timeout in the middle) is found by a scan and leaves a hole that the head skips later.
 *
 * Levels are tracked only while they hold requests (a few emptied ones are kept, so the usual one or two
 * levels cost no allocation per batch and keep reporting 0): priority_levels may be 2^32 and requests may
 * name any of them, so nothing here may grow with the levels ever seen.
 */
const EMPTY_LEVELS_KEPT = 8;

export class WaitingQueues {
  private readonly ids = new Map<number, (string | null)[]>();
  private readonly heads = new Map<number, number>();
  private readonly counts = new Map<number, number>();
  /** levels in use, checked in order by `leave`; nearly always one or two */
  private levels: number[] = [];

  add(id: string, level: number): void {
    let q = this.ids.get(level);
    if (!q) {
      q = [];
      this.ids.set(level, q);
      this.heads.set(level, 0);
      this.counts.set(level, 0);
      this.levels = [...this.levels, level].sort((a, b) => a - b);
    }
    q.push(id);
    this.counts.set(level, this.counts.get(level)! + 1);
  }

  /** Removes `id` if it is waiting; false when it never was (refused at the door) or already left. */
  leave(id: string): boolean {
    const levels = this.levels;
    for (let k = 0; k < levels.length; k++) {
      const level = levels[k];
      const q = this.ids.get(level)!;
      const head = this.heads.get(level)!;
      if (head < q.length && q[head] === id) {
        q[head] = null;
        this.advance(level, q, head + 1);
        return true;
      }
    }
    // Out of order: scan. Rare, and bounded by the queue's length.
    for (let k = 0; k < levels.length; k++) {
      const level = levels[k];
      const q = this.ids.get(level)!;
      const i = q.indexOf(id, this.heads.get(level)!);
      if (i >= 0) {
        q[i] = null;
        this.counts.set(level, this.counts.get(level)! - 1);
        this.forgetIfEmpty(level);
        return true;
      }
    }
    return false;
  }

  /** waiting requests per level, levels ascending */
  depthByLevel(): [number, number][] {
    return this.levels.map((l) => [l, this.counts.get(l)!]);
  }

  private advance(level: number, q: (string | null)[], head: number): void {
    this.counts.set(level, this.counts.get(level)! - 1);
    while (head < q.length && q[head] === null) head++;
    // An emptied queue starts over; else compact once the consumed prefix dominates, so memory follows
    // the live queue, not its history. Consumed slots are cleared at once: a long-lived array that still
    // pointed at the ids of requests long gone kept them alive through every young-generation GC, and
    // everything promoted with them (bench/serve/README.md, "What the heap keeps").
    if (head === q.length) {
      q.length = 0;
      head = 0;
    } else if (head > 1024 && head * 2 > q.length) {
      q.splice(0, head);
      head = 0;
    }
    this.heads.set(level, head);
    this.forgetIfEmpty(level);
  }

  private forgetIfEmpty(level: number): void {
    if (this.counts.get(level) !== 0 || this.levels.length <= EMPTY_LEVELS_KEPT) return;
    this.ids.delete(level);
    this.heads.delete(level);
    this.counts.delete(level);
    this.levels = this.levels.filter((l) => l !== level);
  }
}
