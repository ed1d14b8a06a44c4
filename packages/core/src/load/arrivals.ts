/**
 * Scenario -> arrivals. Open-loop phases become a stream of arrivals in time order, generated as it is
 * read (a run of 100,000/s for an hour never exists in memory: the old up-front list took the server to
 * 2.3 GB and a fatal V8 error). The same scenario + seed always yields the same sequence, the one the
 * former up-front schedule produced. Closed-loop phases cannot be precomputed (the next request waits for
 * an answer), so they come back as driver descriptions plus a RequestSampler the driver draws from.
 *
 * Every plan says how big it is (expected requests, peak rate) so a caller refuses what it cannot carry
 * before sending anything (limits.ts); `scenarioToArrivals`, the eager form the simulator uses, refuses
 * the same way before it builds its list.
 */
import type { SequenceFields } from '../scheduler/sequence/types';
import { Rng } from './rng';
import { applyOverrides, totalDuration, type Phase, type Scenario, type ScenarioOverrides, type ShapeSpec } from './scenario';
import { isTimedPhase, phaseTimes } from './phase-times';
import { checkPlanSize, DEFAULT_LOAD_LIMITS, planSize, type LoadLimits, type PlanSize } from './limits';

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
  /** a stateful model's request: its correlation id and START/END (sim/sequence-traffic.ts makes them) */
  sequence?: SequenceFields;
  /**
   * What the request's input holds: two arrivals with the same key carry the same bytes, so a response
   * cache answers the second (sim/input-keys.ts draws repeats); absent = an input no other request has.
   */
  input_key?: string;
}

export interface ClosedLoopPhase {
  start_us: number;
  end_us: number;
  concurrency: number;
  think_us: number;
}

/** A scenario ready to run: open-loop arrivals as a lazy stream, closed-loop phases as descriptions. */
export interface LoadPlan {
  scenario: Scenario;
  seed: number;
  duration_us: number;
  closed: ClosedLoopPhase[];
  size: PlanSize;
  /** a fresh stream of the open-loop arrivals in time order; every call yields the same sequence */
  open(): OpenArrivals;
  /** what closed-loop clients draw request attributes from (its own stream: the open loop's stays intact) */
  sampler: RequestSampler;
}

/** the open-loop stream and the sampler it draws attributes from */
export interface OpenArrivals extends IterableIterator<Arrival> {
  readonly sampler: RequestSampler;
}

/** The eager form: every open-loop arrival in one array (the simulator, tests, small A/B plans). */
export interface ArrivalPlan {
  scenario: Scenario;
  seed: number;
  duration_us: number;
  arrivals: Arrival[];
  closed: ClosedLoopPhase[];
  /** the sampler after the open loop's draws, as the up-front schedule left it (closed-loop clients use it) */
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

/** The lazy plan of a scenario (overrides applied). Nothing is generated until `open()` is read. */
export function planArrivals(input: Scenario, overrides: ScenarioOverrides = {}): LoadPlan {
  const scenario = applyOverrides(input, overrides);
  const seed = scenario.seed ?? DEFAULT_SEED;
  const target = overrides.model ?? '';
  const closed: ClosedLoopPhase[] = [];
  let start = 0;
  for (const p of scenario.phases) {
    const end = start + p.duration_s * 1e6;
    if (p.type === 'closed') closed.push({ start_us: start, end_us: end, concurrency: p.concurrency, think_us: p.think_us ?? 0 });
    start = end;
  }
  return {
    scenario,
    seed,
    duration_us: totalDuration(scenario) * 1e6,
    closed,
    size: planSize(scenario),
    open: () => openArrivals(scenario, seed, new RequestSampler(scenario, seed, target)),
    sampler: new RequestSampler(scenario, seed, target),
  };
}

/**
 * The eager plan, refused with a clear error (before anything is built) when it is bigger than `limits`
 * allow: a list is only for what fits in memory.
 */
export function scenarioToArrivals(input: Scenario, overrides: ScenarioOverrides = {}, limits: LoadLimits = DEFAULT_LOAD_LIMITS): ArrivalPlan {
  const plan = planArrivals(input, overrides);
  checkPlanSize(plan.size, limits);
  const open = plan.open();
  const arrivals: Arrival[] = [];
  for (const a of open) {
    arrivals.push(a);
    // a Poisson count can exceed its expectation a little; never the hard limit
    if (arrivals.length > limits.max_requests_per_run) throw new Error(`the scenario makes more than ${limits.max_requests_per_run} requests, the most one run may send`);
  }
  return { scenario: plan.scenario, seed: plan.seed, duration_us: plan.duration_us, arrivals, closed: plan.closed, sampler: open.sampler };
}

function openArrivals(scenario: Scenario, seed: number, sampler: RequestSampler): OpenArrivals {
  const it = generateOpen(scenario, seed, sampler) as Generator<Arrival> & { sampler: RequestSampler };
  return Object.assign(it, { sampler });
}

/**
 * Phases play one after the other and each phase's times lie in [start, end), so time order overall is
 * phase order, then time order within a phase: what sorting one list of everything gave, without the list.
 * Attributes are drawn in that order, as before. One timing stream forks one sub-stream per phase (closed
 * and idle phases included), in phase order, exactly as before.
 */
function* generateOpen(scenario: Scenario, seed: number, sampler: RequestSampler): Generator<Arrival> {
  const timing = new Rng(seed);
  let start = 0;
  for (let i = 0; i < scenario.phases.length; i++) {
    const p = scenario.phases[i];
    const end = start + p.duration_s * 1e6;
    const rng = timing.fork(i + 1);
    if (isTimedPhase(p)) for (const t of phaseTimes(p, start, end, rng)) yield sampler.sample(t);
    else if (p.type === 'replay') yield* replayed(p, start, end);
    start = end;
  }
}

/** A replay phase's arrivals (already in memory: they are part of the scenario), in time order. */
function replayed(p: Extract<Phase, { type: 'replay' }>, start: number, end: number): Arrival[] {
  const speed = p.speed ?? 1;
  const out: Arrival[] = [];
  for (const a of p.arrivals) {
    const t = start + a.t_us / speed;
    if (t < end) out.push({ ...a, t_us: Math.round(t), model: a.model ?? '' });
  }
  return out.sort((a, b) => a.t_us - b.t_us);
}
