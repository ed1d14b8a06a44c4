/**
 * Seeded randomness (mulberry32): small, fast, and identical in Node and browsers, so a scenario + seed
 * reproduces the same traffic everywhere (same seed -> byte-identical simulation output).
 */

/**
 * The mulberry32 generator itself: uniform draws in [0, 1) from a 32-bit seed. The one copy for the
 * server's input data and model weights too, so every seeded stream in the project is this sequence.
 */
export function mulberry32(seed: number): () => number {
  const g = new Mulberry32(seed);
  return () => g.next();
}

/** mulberry32 with its 32-bit state in the open, so a stream can be copied (see Rng.clone). */
class Mulberry32 {
  constructor(public state: number) {
    this.state = state >>> 0;
  }

  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
}

export class Rng {
  /** uniform in [0, 1) */
  readonly next: () => number;

  private readonly g: Mulberry32;

  constructor(seed: number) {
    // The seed is mixed so that small neighbouring seeds (1, 2, 3) do not start from nearby states.
    this.g = new Mulberry32((Math.floor(seed) >>> 0) ^ 0x9e3779b9);
    this.next = () => this.g.next();
  }

  /**
   * A copy that continues with the same draws as this stream from here on. The lazy arrival generator uses
   * it where today's schedule drew one whole sub-stream before another from one generator (a burst phase's
   * background, then its bursts): a copy replays the first while the original skips ahead to the second.
   */
  clone(): Rng {
    const c = new Rng(0);
    c.g.state = this.g.state;
    return c;
  }

  /** integer in [min, max] */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** exponential inter-arrival gap for a Poisson process of `ratePerS`, in µs */
  expGapUs(ratePerS: number): number {
    return (-Math.log(1 - this.next()) / ratePerS) * 1e6;
  }

  normal(mean: number, std: number): number {
    const u = 1 - this.next();
    const v = this.next();
    return mean + std * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  /** pick by weight; weights need not sum to 1 */
  weighted<T>(items: readonly { weight: number; value: T }[]): T {
    let total = 0;
    for (const it of items) total += it.weight;
    let r = this.next() * total;
    for (const it of items) {
      r -= it.weight;
      if (r < 0) return it.value;
    }
    return items[items.length - 1].value;
  }

  /** an independent stream derived from this one (so adding draws in one place does not shift another) */
  fork(salt: number): Rng {
    return new Rng(Math.floor(this.next() * 4294967296) ^ Math.imul(salt, 0x85ebca6b));
  }
}
