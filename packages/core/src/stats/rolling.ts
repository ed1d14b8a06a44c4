/**
 * A rolling window split into slots: each slot holds the figures of windowUs/slots of time; a snapshot
 * merges the slots still inside the window. Old slots are recycled lazily when time moves past them, so
 * adding stays O(1) and memory is fixed.
 */
export class Rolling<S> {
  private readonly slots: S[];
  private readonly slotIds: number[];
  readonly slotUs: number;

  constructor(readonly windowUs: number, private readonly make: () => S, private readonly reset: (s: S) => void, count = 10) {
    if (!(windowUs > 0)) throw new RangeError('window must be > 0 µs');
    this.slotUs = windowUs / count;
    this.slots = Array.from({ length: count }, make);
    this.slotIds = new Array(count).fill(-Infinity);
  }

  /** the slot for time t (recycled if it held older data); undefined when t is older than the window */
  at(tUs: number): S | undefined {
    const id = Math.floor(tUs / this.slotUs);
    const k = ((id % this.slots.length) + this.slots.length) % this.slots.length;
    if (this.slotIds[k] === id) return this.slots[k];
    if (this.slotIds[k] > id) return undefined;
    this.reset(this.slots[k]);
    this.slotIds[k] = id;
    return this.slots[k];
  }

  /** time covered by `live(now)`: from the start of its oldest slot to now (at most the window) */
  spanUs(nowUs: number): number {
    const nowId = Math.floor(nowUs / this.slotUs);
    return Math.min(this.windowUs, nowUs - (nowId - this.slots.length + 1) * this.slotUs);
  }

  /** slots within (now - window, now] */
  live(nowUs: number): S[] {
    const nowId = Math.floor(nowUs / this.slotUs);
    const out: S[] = [];
    for (let k = 0; k < this.slots.length; k++) {
      const id = this.slotIds[k];
      if (id <= nowId && id > nowId - this.slots.length) out.push(this.slots[k]);
    }
    return out;
  }
}
