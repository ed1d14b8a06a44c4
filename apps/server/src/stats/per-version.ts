/**
 * Accumulators per model version, for the consumers that fold every bus event (Triton statistics and
 * Prometheus metrics). Events come in runs of the same model: the last hit is kept so a run skips
 * building the map key.
 */
export class PerVersion<T> {
  private readonly byKey = new Map<string, T>();
  private lastModel: string | undefined;
  private lastVersion: string | undefined;
  private last: T | undefined;

  constructor(private readonly create: (model: string, version: string) => T) {}

  static key(model: string, version: string): string {
    return `${model}\u0000${version}`;
  }

  /** The accumulator of one model version, created on first use. */
  get(model: string, version: string): T {
    if (this.last !== undefined && this.lastModel === model && this.lastVersion === version) return this.last;
    const key = PerVersion.key(model, version);
    let v = this.byKey.get(key);
    if (v === undefined) {
      v = this.create(model, version);
      this.byKey.set(key, v);
    }
    this.lastModel = model;
    this.lastVersion = version;
    this.last = v;
    return v;
  }

  /** Without creating one: undefined for a version that had no events. */
  find(model: string, version: string): T | undefined {
    return this.byKey.get(PerVersion.key(model, version));
  }

  /** Forget one model version (unloaded, or loading afresh: Triton's counters belong to a loaded model). */
  delete(model: string, version: string): void {
    this.byKey.delete(PerVersion.key(model, version));
    if (this.lastModel === model && this.lastVersion === version) this.last = undefined;
  }

  entries(): IterableIterator<[string, T]> {
    return this.byKey.entries();
  }

  values(): IterableIterator<T> {
    return this.byKey.values();
  }
}
