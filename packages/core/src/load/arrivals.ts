/**
 * Scenario -> arrival schedule. Open-loop phases become a sorted list of arrivals (computed up front, so the
 * same scenario + seed always yields the same list); closed-loop phases cannot be precomputed (the next
 * request waits for an answer), so they come back as driver descriptions plus a RequestSampler the driver
 * draws request attributes from.
 */
import { Rng } from './rng';
import { applyOverrides, totalDuration, type Phase, type Scenario, type ScenarioOverrides, type ShapeSpec } from './scenario';

export interface Arrival {
  t_us: number;
  /** '' = the target model of the run */
  model: string;
  version?: string;
  priority?: number;
  batch_size: number;
  /** non-batch dims of the inputs (variable-length models) */
  shape?: number[];
  timeout_us?: number;
  id?: string;
}

export interface ClosedLoopPhase {
  start_us: number;
  end_us: number;
  concurrency: number;
  think_us: number;
}

export interface ArrivalPlan {
  scenario: Scenario;
  seed: number;
  duration_us: number;
  arrivals: Arrival[];
  closed: ClosedLoopPhase[];
  sampler: RequestSampler;
}

export const DEFAULT_SEED = 42;

/** the key the scheduler batches on: requests with different keys never share a batch */
export function shapeKeyOf(shape: readonly number[] | undefined): string {
  return shape && shape.length > 0 ? shape.join('x') : '';
}

/** Draws each request's model, priority, batch size and shape from the scenario's mixes. */
export class RequestSampler {
  private readonly rng: Rng;

  constructor(private readonly s: Scenario, seed: number, private readonly target = '') {
    this.rng = new Rng(seed ^ 0x5bd1e995);
  }

  sample(tUs: number): Arrival {
    const s = this.s;
    const a: Arrival = { t_us: Math.round(tUs), model: s.models ? this.rng.weighted(s.models) : this.target, batch_size: 1 };
    if (s.priorities) a.priority = this.rng.weighted(s.priorities);
    if (s.batch_sizes) a.batch_size = this.rng.weighted(s.batch_sizes);
    const shape = s.shapes ? this.shape(s.shapes) : undefined;
    if (shape) a.shape = shape;
    if (s.timeout_us !== undefined) a.timeout_us = s.timeout_us;
    return a;
  }

  private shape(spec: ShapeSpec): number[] | undefined {
    if (spec.type === 'fixed') return spec.dims;
    if (spec.type === 'choice') return this.rng.weighted(spec.options);
    const l = spec.length;
    let n: number;
    if (l.type === 'uniform') n = this.rng.int(l.min, l.max);
    else if (l.type === 'normal') n = Math.min(l.max, Math.max(l.min, Math.round(this.rng.normal(l.mean, l.std))));
    else n = this.rng.weighted(l.values.map((v, i) => ({ value: v, weight: l.weights?.[i] ?? 1 })));
    // padding to a bucket is what real servers do to let variable-length requests share batches
    if (spec.bucket) n = Math.ceil(n / spec.bucket) * spec.bucket;
    const dims = spec.dims ?? [-1];
    return dims.map((d) => (d === -1 ? n : d));
  }
}

export function scenarioToArrivals(input: Scenario, overrides: ScenarioOverrides = {}): ArrivalPlan {
  const scenario = applyOverrides(input, overrides);
  const seed = scenario.seed ?? DEFAULT_SEED;
  const sampler = new RequestSampler(scenario, seed, overrides.model ?? '');
  const timing = new Rng(seed);
  const times: number[] = [];
  const recorded: Arrival[] = [];
  const closed: ClosedLoopPhase[] = [];
  let start = 0;
  scenario.phases.forEach((p, i) => {
    const end = start + p.duration_s * 1e6;
    phaseTimes(p, start, end, timing.fork(i + 1), times, recorded, closed);
    start = end;
  });
  times.sort((a, b) => a - b);
  const arrivals = times.map((t) => sampler.sample(t));
  const merged = recorded.length > 0 ? [...arrivals, ...recorded].sort((a, b) => a.t_us - b.t_us) : arrivals;
  return { scenario, seed, duration_us: totalDuration(scenario) * 1e6, arrivals: merged, closed, sampler };
}

function phaseTimes(p: Phase, start: number, end: number, rng: Rng, out: number[], recorded: Arrival[], closed: ClosedLoopPhase[]): void {
  switch (p.type) {
    case 'constant': {
      if (p.rate <= 0) return;
      const gap = 1e6 / p.rate;
      for (let k = 0; start + k * gap < end; k++) out.push(start + k * gap);
      return;
    }
    case 'poisson': {
      if (p.rate <= 0) return;
      for (let t = start + rng.expGapUs(p.rate); t < end; t += rng.expGapUs(p.rate)) out.push(t);
      return;
    }
    case 'ramp': {
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
          out.push(start + x);
        }
      }
      // Poisson with a time-varying rate, by thinning a Poisson process at the peak rate
      for (let t = start + rng.expGapUs(max); t < end; t += rng.expGapUs(max)) {
        if (rng.next() * max < rate(t)) out.push(t);
      }
      return;
    }
    case 'burst': {
      if (p.rate > 0) for (let t = start + rng.expGapUs(p.rate); t < end; t += rng.expGapUs(p.rate)) out.push(t);
      const spread = p.burst_spread_us ?? 1000;
      for (let b = start; b < end; b += p.burst_every_s * 1e6) {
        for (let k = 0; k < p.burst_size; k++) out.push(Math.min(end - 1, b + rng.next() * spread));
      }
      return;
    }
    case 'closed':
      closed.push({ start_us: start, end_us: end, concurrency: p.concurrency, think_us: p.think_us ?? 0 });
      return;
    case 'replay': {
      const speed = p.speed ?? 1;
      for (const a of p.arrivals) {
        const t = start + a.t_us / speed;
        if (t < end) recorded.push({ ...a, t_us: Math.round(t), model: a.model ?? '' });
      }
      return;
    }
    case 'idle':
      return;
  }
}
