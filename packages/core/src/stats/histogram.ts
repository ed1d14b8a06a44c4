/**
 * A streaming, log-bucketed histogram for latencies in µs: bucket i covers (G^(i-1), G^i] with G = 1.02,
 * so any percentile is within 1% of the true value, memory is fixed (one Uint32Array) and adding is O(1).
 * Histograms merge by adding counts, which is how rolling windows combine their slots.
 */
const GROWTH = 1.02;
const LOG_G = Math.log(GROWTH);
/** up to ~1e10 µs (almost 3 hours) before clamping into the last bucket */
export const HISTOGRAM_BUCKETS = 1200;

export class LogHistogram {
  readonly counts = new Uint32Array(HISTOGRAM_BUCKETS);
  count = 0;
  sum = 0;
  max = 0;

  add(valueUs: number): void {
    const v = valueUs > 1 ? valueUs : 1;
    let i = Math.ceil(Math.log(v) / LOG_G - 1e-9);
    if (i >= HISTOGRAM_BUCKETS) i = HISTOGRAM_BUCKETS - 1;
    this.counts[i]++;
    this.count++;
    this.sum += valueUs;
    if (valueUs > this.max) this.max = valueUs;
  }

  merge(other: LogHistogram): void {
    const a = this.counts;
    const b = other.counts;
    for (let i = 0; i < a.length; i++) a[i] += b[i];
    this.count += other.count;
    this.sum += other.sum;
    if (other.max > this.max) this.max = other.max;
  }

  clear(): void {
    this.counts.fill(0);
    this.count = 0;
    this.sum = 0;
    this.max = 0;
  }

  get mean(): number {
    return this.count > 0 ? this.sum / this.count : 0;
  }

  /** how many values lie above `limitUs`, counting a bucket as its reported (geometric middle) value */
  countAbove(limitUs: number): number {
    if (!(limitUs < this.max)) return 0;
    let above = 0;
    for (let i = this.counts.length - 1; i >= 0 && (i === 0 ? 1 : Math.pow(GROWTH, i - 0.5)) > limitUs; i--) above += this.counts[i];
    return above;
  }

  /** nearest-rank percentile (p in [0,1]), reported as the bucket's geometric middle, capped at the max seen */
  percentile(p: number): number {
    if (this.count === 0) return 0;
    const rank = Math.max(1, Math.ceil(p * this.count));
    let seen = 0;
    for (let i = 0; i < this.counts.length; i++) {
      seen += this.counts[i];
      if (seen >= rank) return i === 0 ? Math.min(1, this.max) : Math.min(this.max, Math.pow(GROWTH, i - 0.5));
    }
    return this.max;
  }
}
