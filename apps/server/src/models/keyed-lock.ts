/**
 * Runs operations one after another per key (a model name) while different keys run independently, so a
 * poll and an API call never interleave on the same model. A failed operation does not block the next.
 */
export class KeyedLock {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(key) ?? Promise.resolve();
    const run = prev.then(fn, fn);
    const tail = run.catch(() => {});
    this.tails.set(key, tail);
    // Forget the key once the last queued operation is done, so the map does not grow with every name seen.
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return run;
  }
}
