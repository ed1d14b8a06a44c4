/**
 * One phase's arrival times, generated lazily in time order. Each generator draws from its phase's random
 * stream in exactly the order the former up-front schedule did (which sorted one list of every time), so
 * a scenario + seed still yields the same arrivals and recorded traces and tests stay valid.
 */
import { MinHeap } from '../util/min-heap';
import type { Rng } from './rng';
import type { Phase } from './scenario';

type TimedPhase = Exclude<Phase, { type: 'closed' } | { type: 'idle' } | { type: 'replay' }>;

export function isTimedPhase(p: Phase): p is TimedPhase {
  return p.type === 'constant' || p.type === 'poisson' || p.type === 'ramp' || p.type === 'burst';
}

/** raw (unrounded) arrival times in [start, end), non-decreasing */
export function* phaseTimes(p: TimedPhase, start: number, end: number, rng: Rng): Generator<number> {
  switch (p.type) {
    case 'constant': {
      if (p.rate <= 0) return;
      const gap = 1e6 / p.rate;
      for (let k = 0; start + k * gap < end; k++) yield start + k * gap;
      return;
    }
    case 'poisson':
      if (p.rate > 0) yield* poissonTimes(p.rate, start, end, rng);
      return;
    case 'ramp':
      yield* rampTimes(p, start, end, rng);
      return;
    case 'burst':
      yield* burstTimes(p, start, end, rng);
      return;
  }
}

function* poissonTimes(rate: number, start: number, end: number, rng: Rng): Generator<number> {
  for (let t = start + rng.expGapUs(rate); t < end; t += rng.expGapUs(rate)) yield t;
}

function* rampTimes(p: Extract<Phase, { type: 'ramp' }>, start: number, end: number, rng: Rng): Generator<number> {
  const d = end - start;
  const rate = (t: number) => p.from + ((p.to - p.from) * (t - start)) / d;
  const max = Math.max(p.from, p.to);
  if (max <= 0) return;
  if (p.arrival === 'uniform') {
    // place the k-th arrival where the integrated rate reaches k + 0.5
    const a = (p.to - p.from) / (2 * d * 1e6);
    const b = p.from / 1e6;
    for (let k = 0; ; k++) {
      const target = k + 0.5;
      const x = a === 0 ? target / b : (-b + Math.sqrt(b * b + 4 * a * target)) / (2 * a);
      if (!(x < d)) return;
      yield start + x;
    }
  }
  // Poisson with a time-varying rate, by thinning a Poisson process at the peak rate
  for (let t = start + rng.expGapUs(max); t < end; t += rng.expGapUs(max)) {
    if (rng.next() * max < rate(t)) yield t;
  }
}

/**
 * Background Poisson traffic merged with bursts. The old schedule drew the whole background first, then
 * the bursts, from one stream: a clone of the stream replays the background lazily while the original
 * skips over the background's draws (counting, storing nothing) to reach the bursts' draws. Bursts are
 * generated one at a time, only once time reaches them, and merged through a heap (a burst's points fall
 * anywhere within its spread, so two bursts can overlap). On equal times background comes first and
 * bursts keep their drawing order, as the old stable sort had them.
 */
function* burstTimes(p: Extract<Phase, { type: 'burst' }>, start: number, end: number, rng: Rng): Generator<number> {
  const background = rng.clone();
  if (p.rate > 0) for (const _ of poissonTimes(p.rate, start, end, rng)) void _;
  const spread = p.burst_spread_us ?? 1000;
  const every = p.burst_every_s * 1e6;
  const pending = new MinHeap<{ t: number; seq: number }>((a, b) => a.t < b.t || (a.t === b.t && a.seq < b.seq));
  let seq = 0;
  let nextBurst = start;
  const bg = p.rate > 0 ? poissonTimes(p.rate, start, end, background) : undefined;
  let bgNext = bg?.next();
  for (;;) {
    const bgT = bgNext && !bgNext.done ? bgNext.value : Infinity;
    // a burst's points are never earlier than min(its start, end - 1): draw each burst once time gets there
    while (nextBurst < end && Math.min(nextBurst, end - 1) <= Math.min(bgT, pending.peek()?.t ?? Infinity)) {
      for (let k = 0; k < p.burst_size; k++) pending.push({ t: Math.min(end - 1, nextBurst + rng.next() * spread), seq: seq++ });
      nextBurst += every;
    }
    const top = pending.peek();
    if (bgT === Infinity && !top) return;
    if (!top || bgT <= top.t) {
      yield bgT;
      bgNext = bg!.next();
    } else {
      yield pending.pop()!.t;
    }
  }
}
