/**
 * A binary min-heap ordered by `less`: the virtual clock's timers and the scheduler's queue deadlines
 * both need "the earliest next" in O(log n) as items come and go.
 */
export class MinHeap<T> {
  private readonly h: T[] = [];

  constructor(private readonly less: (a: T, b: T) => boolean) {}

  get size(): number {
    return this.h.length;
  }

  /** the smallest item, left in place */
  peek(): T | undefined {
    return this.h[0];
  }

  /** every item, in heap (not sorted) order */
  values(): IterableIterator<T> {
    return this.h.values();
  }

  push(item: T): void {
    const h = this.h;
    h.push(item);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.less(h[i], h[p])) break;
      [h[i], h[p]] = [h[p], h[i]];
      i = p;
    }
  }

  /** removes and returns the smallest item */
  pop(): T | undefined {
    const h = this.h;
    const top = h[0];
    const last = h.pop();
    if (h.length > 0) {
      h[0] = last!;
      this.siftDown(0);
    }
    return top;
  }

  /** keeps only the items `keep` accepts, in O(n) (for a user that removes lazily and must bound what it holds) */
  retain(keep: (item: T) => boolean): void {
    const h = this.h;
    let n = 0;
    for (let i = 0; i < h.length; i++) if (keep(h[i])) h[n++] = h[i];
    h.length = n;
    for (let i = (n >> 1) - 1; i >= 0; i--) this.siftDown(i);
  }

  private siftDown(i: number): void {
    const h = this.h;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < h.length && this.less(h[l], h[m])) m = l;
      if (r < h.length && this.less(h[r], h[m])) m = r;
      if (m === i) return;
      [h[i], h[m]] = [h[m], h[i]];
      i = m;
    }
  }
}
