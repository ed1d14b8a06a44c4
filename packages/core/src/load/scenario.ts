/**
 * Load scenarios as data (JSON). A scenario is a list of phases played one after the other, plus how each
 * request looks (model mix, priority mix, batch sizes, input shapes) and a seed.
 *
 * Phase types:
 * - constant: evenly spaced arrivals at `rate` per second (a metronome: no randomness in timing)
 * - poisson: exponential gaps at mean `rate` per second (independent clients)
 * - ramp: rate moves linearly from `from` to `to`; `arrival` 'poisson' (default) or 'uniform'
 * - burst: `rate` background (Poisson) plus `burst_size` requests arriving within `burst_spread_us` every
 *   `burst_every_s` seconds
 * - closed: `concurrency` clients, each sending its next request `think_us` after its previous answer
 * - idle: nothing for `duration_s`
 * - replay: recorded arrivals (offsets from the phase start), at `speed` x
 */
export type { LengthDistribution, Phase, ReplayArrival, Scenario, ShapeSpec, Weighted } from './scenario-schema';
import type { Phase, Scenario } from './scenario-schema';

export interface ScenarioOverrides {
  /** scale every phase's rates so the busiest phase runs at this rate (requests/s) */
  rate?: number;
  /** scale phase durations so the scenario lasts this many seconds */
  duration_s?: number;
  seed?: number;
  /** closed-loop phases: number of clients */
  concurrency?: number;
  /** target model for requests without a model mix */
  model?: string;
}

/** the rate that `overrides.rate` replaces: the busiest phase's peak rate */
export function nominalRate(s: Scenario): number {
  let peak = 0;
  for (const p of s.phases) {
    if (p.type === 'constant' || p.type === 'poisson') peak = Math.max(peak, p.rate);
    else if (p.type === 'ramp') peak = Math.max(peak, p.from, p.to);
    else if (p.type === 'burst') peak = Math.max(peak, p.rate + p.burst_size / p.burst_every_s);
  }
  return peak;
}

export function totalDuration(s: Scenario): number {
  return s.phases.reduce((t, p) => t + p.duration_s, 0);
}

/** apply --rate/--duration/--concurrency to a copy of the scenario */
export function applyOverrides(s: Scenario, o: ScenarioOverrides = {}): Scenario {
  const peak = nominalRate(s);
  const rateK = o.rate !== undefined && peak > 0 ? o.rate / peak : 1;
  const total = totalDuration(s);
  const timeK = o.duration_s !== undefined && total > 0 ? o.duration_s / total : 1;
  const phases = s.phases.map((p): Phase => {
    const d = p.duration_s * timeK;
    switch (p.type) {
      case 'constant':
      case 'poisson':
        return { ...p, duration_s: d, rate: p.rate * rateK };
      case 'ramp':
        return { ...p, duration_s: d, from: p.from * rateK, to: p.to * rateK };
      case 'burst':
        return { ...p, duration_s: d, rate: p.rate * rateK, burst_size: Math.max(1, Math.round(p.burst_size * rateK)) };
      case 'closed':
        return { ...p, duration_s: d, concurrency: o.concurrency ?? p.concurrency };
      case 'replay':
        return { ...p, duration_s: d, speed: (p.speed ?? 1) / timeK };
      default:
        return { ...p, duration_s: d };
    }
  });
  return { ...s, seed: o.seed ?? s.seed, phases };
}
