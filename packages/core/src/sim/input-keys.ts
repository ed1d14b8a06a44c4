/**
 * Repeated inputs for the simulator's response cache: each open-loop arrival either carries an input no
 * request had before, or, with probability `fraction`, repeats one an earlier request of the same model
 * carried (drawn uniformly from that model's inputs so far, so popular and rare inputs both come back).
 * Seeded apart from the arrival times, so the same traffic with and without repeats arrives at the same
 * instants.
 */
import type { Arrival } from '../load/arrivals';
import { Rng } from '../load/rng';

export function withInputKeys(arrivals: readonly Arrival[], fraction: number, seed: number): Arrival[] {
  if (!(fraction >= 0 && fraction <= 1)) throw new RangeError(`repeats must be a fraction in 0..1, got ${fraction}`);
  const rng = new Rng(seed ^ 0x5bd1e995);
  const seen = new Map<string, string[]>();
  let fresh = 0;
  return arrivals.map((a) => {
    const mine = seen.get(a.model) ?? [];
    seen.set(a.model, mine);
    const repeat = mine.length > 0 && rng.next() < fraction;
    const key = repeat ? mine[Math.floor(rng.next() * mine.length)]! : `in${++fresh}`;
    if (!repeat) mine.push(key);
    return { ...a, input_key: key };
  });
}
