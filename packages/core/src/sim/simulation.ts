/**
 * The simulator: a scenario's traffic driven through the SAME ModelScheduler the server runs, on a
 * VirtualClock, with SimExecutor's cost model standing in for the backend. Fully synchronous and seeded:
 * the same inputs give the same events, byte for byte.
 *
 * `createSimulation` is the step-wise form for the browser's teaching mode (play / pause / single-step /
 * scrub: step one event, advance to a time, read events so far, change the config live through
 * `schedulers`); `simulate` runs it to the end and returns the events and the summary.
 *
 * Timers fire exactly on time and the server's own threads take no CPU: what `simulate` and teaching mode
 * show. `hostModel` is the one seam for a model of the real server's host (bench/sim-host: RealClock's
 * whole-millisecond sleeps, main-thread stalls and collections, spinning), which the fidelity bench plugs in.
 */
import { errors } from '../errors/messages';
import type { Clock } from '../clock/clock';
import { VirtualClock } from '../clock/virtual-clock';
import { EventBus, type SchedulerEvent } from '../events';
import { scenarioToArrivals, shapeKeyOf, type Arrival, type ArrivalPlan } from '../load/arrivals';
import { Rng } from '../load/rng';
import { DEFAULT_LOAD_LIMITS, type LoadLimits } from '../load/limits';
import type { Scenario, ScenarioOverrides } from '../load/scenario';
import type { SchedulerConfigInput } from '../scheduler/config-input';
import { ModelScheduler } from '../scheduler/model-scheduler';
import { schedulerKindFor, type Scheduler } from '../scheduler/seam';
import { ResourceGate } from '../scheduler/resource-gate';
import { deviceFor, groupsFromConfig } from '../scheduler/instance-pool';
import { SequenceScheduler } from '../scheduler/sequence/sequence-scheduler';
import { sequenceArrivals, type SequenceTraffic } from './sequence-traffic';
import { costOf, DEFAULT_COST, type CostModel } from './cost-model';
import { SimExecutor } from './sim-executor';
import { CpuHost } from './cpu-host';
import { SummaryCollector, type SimSummary } from './summary';
import { AutotuneDriver, batchingView, type DecisionRecord } from '../autotune/driver';
import type { AutotuneStatus } from '../autotune/status';
import { autotuneTargetUs } from '../config/autotune-parameter';
import { PhaseCollector, type PhaseFigures } from './phase-summary';
import { RateLimiter } from '../rate-limiter/rate-limiter';
import type { ExplicitResource, RateLimitMode } from '../rate-limiter/flags';
import type { ResponseCache } from '../response-cache/response-cache';
import { SimCacheDoor, type SimCacheOptions } from './cache-door';
import { withInputKeys } from './input-keys';

/** What a model of the real server's host puts in place of the simulation's ideal one. */
export interface SimHost {
  /** the clock the scheduler and the load driver wait on (their timers; default: the virtual clock, on time) */
  timers?: Clock;
  /** a request reached the server at t */
  request?(tUs: number): void;
  /** each model's executor (default: SimExecutor as it is) */
  executor?(model: string, cost: CostModel, rng: Rng, o: { host: CpuHost; prefetch: number }): SimExecutor<Arrival>;
}

/** Builds a host model for one simulation: its virtual clock, its seed (for the model's own draws), its cores. */
export type SimHostModel = (clock: VirtualClock, seed: number, cores: CpuHost) => SimHost;

export interface SimulationOptions {
  scenario: Scenario;
  /** one config, or several (a model mix); each needs `name` when there are several */
  configs: SchedulerConfigInput | readonly SchedulerConfigInput[];
  /** one cost model for every model, or per model name */
  cost?: CostModel | Record<string, CostModel>;
  /** CPU cores the simulated host has (may be a measured effective figure): CPU-kind cost models share them (default: no contention) */
  cores?: number;
  seed?: number;
  overrides?: ScenarioOverrides;
  /** conversations for a stateful model, sent beside the scenario's arrivals (to the first model) */
  sequences?: SequenceTraffic;
  /** keep every event in `events` (default true; false for long headless runs that only want the summary) */
  record?: boolean;
  /**
   * Batches an instance may hold behind its running one (the executor's prefetch; default 1, what the
   * server's onnxruntime and stub executors declare). 0: an instance takes a batch only when idle.
   */
  prefetch?: number;
  /** a model of the real server's host (the simulator-fidelity bench's); absent: ideal timers, no host threads */
  hostModel?: SimHostModel;
  /**
   * Run the autotuner (autotune/policy.ts) on a model: a p99 target in µs per model name (or one for the
   * first model), over the config's `autotune_p99_ms` parameter; false: never, even when a config declares
   * one. Absent: each config's parameter decides.
   */
  autotune?: false | number | Record<string, number>;
  /**
   * The server's rate limiter, one shared by every model (`--rate-limit`, `--rate-limit-resource`): a
   * formed batch begins only once its instance holds the resources its instance_group's rate_limiter
   * names. Absent: none, as `--rate-limit off`. Models share resources only through it: give them one
   * CpuHost (`cores`) to model the accelerator they share.
   */
  rateLimit?: { mode: RateLimitMode; resources?: readonly ExplicitResource[] };
  /** the server's response cache in front of each model whose config enables it (cache-door.ts) */
  responseCache?: SimCacheOptions;
  /** the fraction of open-loop arrivals that repeat an earlier input of their model (input-keys.ts; default 0: every input unique) */
  repeats?: number;
}

export interface Simulation {
  readonly clock: VirtualClock;
  readonly bus: EventBus;
  readonly plan: ArrivalPlan;
  readonly events: SchedulerEvent[];
  readonly schedulers: ReadonlyMap<string, ModelScheduler<Arrival, string>>;
  /** the models with sequence_batching run the sequence batcher, as the server picks it (schedulerKindFor) */
  readonly sequenceSchedulers: ReadonlyMap<string, SequenceScheduler<Arrival, string>>;
  /** the autotuners running, per model name, with their decisions */
  readonly autotuners: ReadonlyMap<string, AutotuneDriver>;
  /** the rate limiter the models share (`rateLimit`), its snapshot the state view's */
  readonly rateLimiter?: RateLimiter;
  /** the response cache at the door (`responseCache`) */
  readonly cache?: ResponseCache<true>;
  now(): number;
  /** nothing left to happen */
  done(): boolean;
  /** run until at least one new event happened; returns the new events ([] when done) */
  stepEvent(): SchedulerEvent[];
  advanceTo(tUs: number): void;
  runToEnd(): void;
  summary(): SimSummary;
  /** the first model's figures per scenario phase (p99, throughput, compute per request, delay) */
  phases(): PhaseFigures[];
}

/**
 * A simulation sends on a virtual clock, so the real generator's rate limit (it could not keep a faster
 * schedule) does not apply; the request count still does, since the arrivals are one list in memory.
 */
const SIM_LIMITS: LoadLimits = { ...DEFAULT_LOAD_LIMITS, max_rate_per_s: Infinity };

const isCost = (c: object): c is CostModel => 'fixed_us' in c || 'per_item_us' in c || 'table' in c;

export function createSimulation(opts: SimulationOptions): Simulation {
  const configs = Array.isArray(opts.configs) ? (opts.configs as SchedulerConfigInput[]) : [opts.configs as SchedulerConfigInput];
  if (configs.length === 0) throw new Error('simulate needs at least one model config');
  const names = configs.map((c, i) => c.name ?? (configs.length === 1 ? 'model' : `model_${i}`));
  const target = names[0];
  const seed = opts.seed ?? opts.overrides?.seed ?? opts.scenario.seed ?? 42;
  const plan = scenarioToArrivals(opts.scenario, { ...opts.overrides, seed, model: opts.overrides?.model ?? target }, SIM_LIMITS);
  const clock = new VirtualClock();
  const cpu = new CpuHost(opts.cores ?? Infinity);
  const hostModel = opts.hostModel?.(clock, seed, cpu) ?? {};
  // the scheduler and the load driver wait on the host model's timers; compute ends on the virtual clock
  const timerClock = hostModel.timers ?? clock;
  const bus = new EventBus();
  const events: SchedulerEvent[] = [];
  const collector = new SummaryCollector();
  bus.on((e) => collector.add(e));
  if (opts.record !== false) bus.on((e) => events.push(e));

  const costRng = new Rng(seed ^ 0x27d4eb2d);
  const rateLimiter = opts.rateLimit ? new RateLimiter(opts.rateLimit.mode, opts.rateLimit.resources ?? []) : undefined;
  const door = opts.responseCache ? new SimCacheDoor(opts.responseCache, clock, timerClock, bus) : undefined;
  const cached = new Set(configs.flatMap((c, i) => (c.response_cache?.enable ? [names[i]] : [])));
  const schedulers = new Map<string, ModelScheduler<Arrival, string>>();
  const sequenceSchedulers = new Map<string, SequenceScheduler<Arrival, string>>();
  const byName = new Map<string, Scheduler<Arrival, string>>();
  configs.forEach((config, i) => {
    const c = opts.cost ?? DEFAULT_COST;
    const cost = isCost(c) ? c : (c as Record<string, CostModel>)[names[i]] ?? DEFAULT_COST;
    const o = { host: cpu, prefetch: opts.prefetch ?? 1 };
    const executor = hostModel.executor?.(names[i], cost, costRng, o) ?? new SimExecutor<Arrival>(clock, cost, costRng, o);
    const so = { model: names[i], version: '1', config, clock: timerClock, bus, executor, rateLimiter };
    // the server's choice (schedulerKindFor): a stateful model gets the sequence batcher; a kind the
    // simulator does not run is refused, never simulated as another
    const kind = schedulerKindFor(config);
    if (kind === 'iterative') throw new Error(`the simulator does not run iterative sequences (continuous batching) yet: model ${names[i]}`);
    if (kind === 'sequence' && rateLimiter && rateLimiter.mode !== 'off') throw new Error(`the simulator's sequence batcher does not ask the rate limiter: model ${names[i]}`);
    // resources the server cannot give fail the load in the limiter's words, here: the scheduler's start
    // would fail the same way, but only as a rejected promise, and the run would go on without the model
    new ResourceGate(rateLimiter, names[i], '').check(groupsFromConfig(names[i], config.instance_group), deviceFor);
    const s = kind === 'sequence' ? new SequenceScheduler<Arrival, string>(so) : new ModelScheduler<Arrival, string>(so);
    if (s instanceof SequenceScheduler) sequenceSchedulers.set(names[i], s);
    else schedulers.set(names[i], s);
    byName.set(names[i], s);
    s.start().catch(() => undefined); // the sim executor cannot fail to start
  });

  const targetDynamic = schedulers.get(target);
  const phases = new PhaseCollector(plan.scenario, target, targetDynamic ? batchingView(targetDynamic.currentConfig).delay_us : 0);
  bus.on((e) => phases.add(e));
  const autotuners = new Map<string, AutotuneDriver>();
  configs.forEach((config, i) => {
    const a = opts.autotune;
    const targetUs = a === false ? undefined : typeof a === 'number' ? (i === 0 ? a : undefined) : a?.[names[i]] ?? autotuneTargetUs(config);
    if (targetUs === undefined || !schedulers.has(names[i])) return; // the tuner turns dynamic batching's knobs
    const c = opts.cost ?? DEFAULT_COST;
    const cost = isCost(c) ? c : (c as Record<string, CostModel>)[names[i]] ?? DEFAULT_COST;
    // the tuner's windows run on the virtual clock (it models the policy, not the host's timers)
    autotuners.set(names[i], new AutotuneDriver({ clock, bus, scheduler: schedulers.get(names[i])! as ModelScheduler<unknown, unknown>, target_us: targetUs, cost: costOf(cost), until_us: plan.duration_us, cores: opts.cores }));
  });

  let seq = 0;
  const send = (a: Arrival, onAnswer?: () => void): void => {
    collector.sent++;
    hostModel.request?.(clock.now());
    const model = a.model || target;
    const id = a.id ?? `r${++seq}`;
    const s = byName.get(model);
    if (!s) {
      bus.emit({ type: 'request.rejected', t: clock.now(), model, version: a.version ?? '', request_id: id, reason: 'invalid', message: errors.UNKNOWN_MODEL(model).message });
      onAnswer?.();
      return;
    }
    const run = (settled?: (ok: boolean) => void): void => {
      s.submit({ id, batchSize: a.batch_size, shapeKey: shapeKeyOf(a.shape), priority: a.priority, timeoutUs: a.timeout_us, payload: a, ...(a.sequence ? { sequence: a.sequence } : {}) }, (err) => {
        settled?.(!err);
        if (!settled) onAnswer?.();
      });
    };
    // a model that enables the cache, on a server that has one: the door answers hits before any queue
    if (door && cached.has(model)) door.pass(model, id, a, run, () => onAnswer?.());
    else run();
  };

  // open loop: one chained timer walks the precomputed arrivals
  // conversations join the scenario's open-loop arrivals in time order (the scenario's first at a tie)
  const open = opts.repeats ? withInputKeys(plan.arrivals, opts.repeats, seed) : plan.arrivals;
  const arrivals = opts.sequences ? [...open, ...sequenceArrivals(opts.sequences, seed, target)].sort((a, b) => a.t_us - b.t_us) : open;
  let next = 0;
  const fireArrivals = (): void => {
    const now = clock.now();
    while (next < arrivals.length && arrivals[next].t_us <= now) send(arrivals[next++]);
    if (next < arrivals.length) timerClock.setTimer(arrivals[next].t_us, fireArrivals);
  };
  if (arrivals.length > 0) timerClock.setTimer(arrivals[0].t_us, fireArrivals);

  // closed loop: each client sends its next request think_us after its previous answer, until the phase ends
  for (const phase of plan.closed) {
    const client = (): void => {
      const t = clock.now();
      if (t >= phase.end_us) return;
      send(plan.sampler.sample(t), () => {
        const at = clock.now() + phase.think_us;
        if (at < phase.end_us) timerClock.setTimer(at, client);
      });
    };
    for (let c = 0; c < phase.concurrency; c++) timerClock.setTimer(phase.start_us, client);
  }

  const sim: Simulation = {
    clock,
    bus,
    plan,
    events,
    schedulers,
    sequenceSchedulers,
    autotuners,
    ...(rateLimiter ? { rateLimiter } : {}),
    ...(door ? { cache: door.cache } : {}),
    now: () => clock.now(),
    done: () => clock.nextTimerAt() === undefined,
    stepEvent() {
      const before = events.length;
      while (events.length === before && clock.step()) {
        /* fire timers until something visible happened */
      }
      return events.slice(before);
    },
    advanceTo: (t) => clock.advanceTo(Math.max(t, clock.now())),
    runToEnd() {
      clock.runUntilIdle(50_000_000);
    },
    summary: () => collector.summary(plan.scenario.name, seed),
    phases: () => phases.figures(),
  };
  return sim;
}

export function simulate(opts: SimulationOptions): { events: SchedulerEvent[]; summary: SimSummary; phases: PhaseFigures[]; decisions: DecisionRecord[]; autotune: { model: string; status: AutotuneStatus }[] } {
  const sim = createSimulation(opts);
  sim.runToEnd();
  return {
    events: sim.events, summary: sim.summary(), phases: sim.phases(), decisions: [...sim.autotuners.values()].flatMap((a) => a.decisions),
    // each tuner's status at the end (status.ts): what the server's panel would say
    autotune: [...sim.autotuners].map(([model, a]) => ({ model, status: a.status })),
  };
}
