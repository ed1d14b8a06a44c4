/**
 * Fixed-capacity ring buffer. High-rate data (events, samples, batches) lives in these so memory stays
 * bounded however long the dashboard runs, and pushing never allocates once the buffer is full.
 */
export class Ring<T> {
  private items: (T | undefined)[];
  private start = 0;
  private count = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity <= 0) throw new Error(`ring capacity must be a positive integer, got ${capacity}`);
    this.items = new Array(capacity);
  }

  get length(): number {
    return this.count;
  }

  push(item: T): void {
    if (this.count < this.capacity) {
      this.items[(this.start + this.count) % this.capacity] = item;
      this.count++;
    } else {
      // Full: overwrite the oldest and move the start forward.
      this.items[this.start] = item;
      this.start = (this.start + 1) % this.capacity;
    }
  }

  /** i = 0 is the oldest item still held. */
  at(i: number): T | undefined {
    if (i < 0 || i >= this.count) return undefined;
    return this.items[(this.start + i) % this.capacity];
  }

  last(): T | undefined {
    return this.at(this.count - 1);
  }

  toArray(): T[] {
    const out: T[] = new Array(this.count);
    for (let i = 0; i < this.count; i++) out[i] = this.items[(this.start + i) % this.capacity] as T;
    return out;
  }

  /** Items with key(item) >= from, oldest first (assumes items are pushed in key order). */
  since(from: number, key: (item: T) => number): T[] {
    let lo = 0;
    let hi = this.count;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (key(this.at(mid) as T) < from) lo = mid + 1;
      else hi = mid;
    }
    const out: T[] = [];
    for (let i = lo; i < this.count; i++) out.push(this.at(i) as T);
    return out;
  }

  clear(): void {
    this.items = new Array(this.capacity);
    this.start = 0;
    this.count = 0;
  }
}
