/**
 * preserve_ordering: answers leave in acceptance order. An answer that is ready early is held until every
 * earlier accepted request has been answered. Requests accepted before ordering was switched on (seq below
 * the floor) are never held, so switching it on live cannot wait on a request that is not tracked.
 */
export class OrderedRelease<T> {
  private held = new Map<number, T | null>();
  private next: number;
  private enabled: boolean;

  constructor(enabled: boolean, private readonly release: (item: T) => void, firstSeq = 0) {
    this.enabled = enabled;
    this.next = firstSeq;
  }

  get heldCount(): number {
    let n = 0;
    for (const v of this.held.values()) if (v !== null) n++;
    return n;
  }

  /** `item` null = answered already (e.g. rejected), only unblocks later ones */
  settle(seq: number, item: T | null): void {
    if (!this.enabled || seq < this.next) {
      if (item !== null) this.release(item);
      return;
    }
    this.held.set(seq, item);
    while (this.held.has(this.next)) {
      const v = this.held.get(this.next)!;
      this.held.delete(this.next);
      this.next++;
      if (v !== null) this.release(v);
    }
  }

  /** switch on (tracking from `nextSeq`) or off (releasing everything held, in order) */
  setEnabled(on: boolean, nextSeq: number): void {
    if (on === this.enabled) return;
    if (on) {
      this.enabled = true;
      this.next = nextSeq;
      return;
    }
    this.enabled = false;
    const seqs = [...this.held.keys()].sort((a, b) => a - b);
    const items = seqs.map((s) => this.held.get(s));
    this.held.clear();
    for (const v of items) if (v != null) this.release(v);
  }
}
