/**
 * The scenario form for a stateful model: conversations instead of independent requests. Each sequence
 * has a correlation id, a first request with START, `length` requests in all `step_gap_us` apart, and
 * the last with END (unless it is one of the `abandoned` ones, which go quiet without END: what an abandoned
 * session costs the batcher until max_sequence_idle_microseconds takes its slot back).
 *
 * Deterministic: the same form and seed give the same arrivals (lengths drawn from the seeded Rng), so a
 * simulation on the virtual clock replays exactly.
 */
import type { Arrival } from '../load/arrivals';
import { Rng } from '../load/rng';
import type { SequenceFields } from '../scheduler/sequence/types';

/** an arrival of a conversation: its correlation id and START/END */
export type SequenceArrival = Arrival & { sequence: SequenceFields };

export interface SequenceTraffic {
  /** how many sequences (conversations) */
  count: number;
  /** requests per sequence, drawn uniformly in [min, max] */
  length: { min: number; max: number };
  /** a new sequence STARTs every this many µs (the first at `start_us`) */
  start_every_us: number;
  /** µs between two requests of one sequence */
  step_gap_us: number;
  start_us?: number;
  /** the first correlation id (then +1 per sequence); uint64 ids */
  first_id?: number;
  /** these sequences (0-based, in START order) never send END: they go quiet, holding their slot until the idle timeout */
  abandoned?: number[];
}

const positiveInt = (v: number, name: string, min = 1) => {
  if (!Number.isInteger(v) || v < min) throw new Error(`sequence traffic: ${name} must be an integer >= ${min}, got ${v}`);
};

export function checkSequenceTraffic(t: SequenceTraffic): void {
  positiveInt(t.count, 'count');
  positiveInt(t.length.min, 'length.min');
  positiveInt(t.length.max, 'length.max');
  if (t.length.max < t.length.min) throw new Error(`sequence traffic: length.max ${t.length.max} is below length.min ${t.length.min}`);
  positiveInt(t.start_every_us, 'start_every_us', 0);
  positiveInt(t.step_gap_us, 'step_gap_us', 0);
  positiveInt(t.first_id ?? 1, 'first_id');
  for (const k of t.abandoned ?? []) if (!Number.isInteger(k) || k < 0 || k >= t.count) throw new Error(`sequence traffic: abandoned sequence ${k} is not one of 0..${t.count - 1}`);
}

/** Every request of every sequence, in time order (ties: the earlier sequence first, so a START precedes its steps). */
export function sequenceArrivals(t: SequenceTraffic, seed: number, model = ''): SequenceArrival[] {
  checkSequenceTraffic(t);
  const rng = new Rng(seed ^ 0x5e9);
  const out: (SequenceArrival & { order: number })[] = [];
  const first = t.first_id ?? 1;
  const abandoned = new Set(t.abandoned ?? []);
  let order = 0;
  for (let s = 0; s < t.count; s++) {
    const len = rng.int(t.length.min, t.length.max);
    const t0 = (t.start_us ?? 0) + s * t.start_every_us;
    const id = BigInt(first + s);
    for (let k = 0; k < len; k++) {
      const end = k === len - 1 && !abandoned.has(s);
      out.push({ t_us: t0 + k * t.step_gap_us, model, batch_size: 1, id: `seq${first + s}.${k + 1}`, sequence: { id, start: k === 0, end }, order: order++ });
    }
  }
  out.sort((a, b) => a.t_us - b.t_us || a.order - b.order);
  return out.map(({ order: _o, ...a }) => a);
}
