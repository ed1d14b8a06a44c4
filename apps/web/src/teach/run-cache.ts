/**
 * A lesson's runs, memoised per setting: the page asks for the same runs again as its knobs move, and a
 * run is deterministic (seeded, on the virtual clock), so the first answer is every later one.
 */
export function cachedRuns<A extends unknown[], R>(keyOf: (...a: A) => string, run: (...a: A) => R): (...a: A) => R {
  const runs = new Map<string, R>();
  return (...a) => {
    const key = keyOf(...a);
    if (!runs.has(key)) runs.set(key, run(...a));
    return runs.get(key)!;
  };
}
