/**
 * Drives a target with load: open loop (a stream of arrivals, sent at their times divided by the speed,
 * whatever the answers do: how real traffic behaves) or closed loop (N clients each sending the next
 * request when the previous one is answered: perf_analyzer's concurrency mode).
 *
 * Time comes from an injected Clock (core's RealClock in production, a VirtualClock in tests), so a test
 * decides when each send is due instead of measuring real time. Memory is bounded whatever the run's
 * length: arrivals are read from the stream as they fall due, and what the run measured is kept in
 * fixed-size histograms (client-stats.ts), never per request.
 *
 * Stopping stops sending; requests already sent are still awaited, so every request counts exactly once.
 */
import type { Clock } from '@inferscope/core/clock';
import { DEFAULT_LOAD_LIMITS, type Arrival, type ClosedLoopPhase, type LoadLimits, type LoadPlan, type RequestSampler } from '@inferscope/core/load';
import type { LoadClientFigures } from '@inferscope/core';
import { ClientStats, type LatencySummary, type RunCounters } from './client-stats';
import type { InferCall, InferTarget } from './targets';

export type { LatencySummary, RunCounters } from './client-stats';

/** One arrival of an open-loop schedule: core's trace/arrival record (model '' = the run's target model). */
export type LoadArrival = Arrival;

/** Open-loop arrivals in time order: a plan's lazy stream, or a trace read line by line from a file. */
export type ArrivalSource = Iterator<Arrival> | AsyncIterator<Arrival>;

export interface RunProgress extends RunCounters {
  client: LoadClientFigures;
}

export interface RunOptions {
  clock: Clock;
  signal?: AbortSignal;
  /** 2 = twice as fast as scheduled */
  speed?: number;
  /** called at most every `progressEveryMs` (on the clock) with the running counters and figures */
  onProgress?: (p: RunProgress) => void;
  progressEveryMs?: number;
  /** model for arrivals whose model is '' (scenarios without a model mix) */
  model?: string;
  /** version of `model` for arrivals that name none (absent = the latest READY version) */
  version?: string;
  limits?: Pick<LoadLimits, 'max_requests_per_run' | 'max_in_flight'>;
}

export interface RunResult extends RunCounters {
  stopped: boolean;
  /** the run reached max_requests_per_run and stopped sending */
  truncated: boolean;
  summary: LatencySummary;
  client: LoadClientFigures;
  /** why sending ended early (a trace line that went bad mid-replay): the counts still cover every request */
  error?: string;
}

/** What a run drives: open-loop arrivals and/or closed-loop phases with the sampler their clients draw from. */
export interface LoadWork {
  open?: ArrivalSource;
  closed?: readonly ClosedLoopPhase[];
  sampler?: RequestSampler;
}

/** A plan's work: its open-loop stream (fresh) and its closed-loop phases. */
export function planWork(plan: LoadPlan): LoadWork {
  return { open: plan.size.expected_requests > 0 ? plan.open() : undefined, closed: plan.closed, sampler: plan.sampler };
}

class RunState {
  readonly start: number;
  readonly stats = new ClientStats();
  readonly limits: Pick<LoadLimits, 'max_requests_per_run' | 'max_in_flight'>;
  inFlight = 0;
  truncated = false;
  private drained: (() => void) | undefined;
  private lastProgress = -Infinity;

  constructor(
    private readonly target: InferTarget,
    readonly opts: RunOptions,
  ) {
    this.start = opts.clock.now();
    this.limits = opts.limits ?? DEFAULT_LOAD_LIMITS;
  }

  elapsedUs(): number {
    return this.opts.clock.now() - this.start;
  }

  get stopped(): boolean {
    return (this.opts.signal?.aborted ?? false) || this.truncated;
  }

  progress(force = false): void {
    if (!this.opts.onProgress) return;
    const t = this.opts.clock.now();
    if (!force && t - this.lastProgress < (this.opts.progressEveryMs ?? 200) * 1000) return;
    this.lastProgress = t;
    this.opts.onProgress({ ...this.stats.counters(this.elapsedUs() / 1e6), client: this.stats.figures() });
  }

  /**
   * false when the run may send no more (its total is reached). An open-loop arrival over max_in_flight is
   * skipped (counted); closed-loop clients pass `onAnswer` and are bounded by their concurrency instead.
   */
  send(a: Arrival, scheduledUs: number, onAnswer?: () => void): boolean {
    if (this.stats.sent >= this.limits.max_requests_per_run) {
      this.truncated = true;
      return false;
    }
    if (!onAnswer && this.inFlight >= this.limits.max_in_flight) {
      this.stats.skipped++;
      return true;
    }
    const call = toCall(a, this.opts.model, this.opts.version);
    const clock = this.opts.clock;
    const sentAt = clock.now();
    this.stats.sent++;
    this.stats.lag.add(Math.max(0, sentAt - this.start - scheduledUs));
    this.inFlight++;
    const done = (ok: boolean, status: number, error?: string) => {
      this.stats.answer(ok, status, clock.now() - sentAt, error);
      if (--this.inFlight === 0) this.drained?.();
      this.progress();
      onAnswer?.();
    };
    this.target.infer(call).then(
      (o) => done(o.ok, o.status, o.error),
      (err: unknown) => done(false, 0, `the target failed: ${err instanceof Error ? err.message : String(err)}`),
    );
    this.progress();
    return true;
  }

  async finish(): Promise<RunResult> {
    if (this.inFlight > 0) await new Promise<void>((r) => (this.drained = r));
    this.progress(true);
    const elapsed = this.elapsedUs() / 1e6;
    return { ...this.stats.counters(elapsed), stopped: this.stopped, truncated: this.truncated, summary: this.stats.summary(elapsed), client: this.stats.figures() };
  }
}

/** Resolves at `atUs` on the clock, or at once when the signal aborts. */
function sleepUntil(clock: Clock, atUs: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clock.clearTimer(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = clock.setTimer(atUs, done);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** Open loop: each arrival at its time (divided by speed), never waiting for answers. */
async function runOpen(st: RunState, source: ArrivalSource, speed: number): Promise<void> {
  const { clock, signal } = st.opts;
  for (let r = await source.next(); !r.done && !st.stopped; r = await source.next()) {
    const scheduled = r.value.t_us / speed;
    // One timer per arrival that is not yet due; when the run is behind, everything due goes out at once.
    if (clock.now() < st.start + scheduled) await sleepUntil(clock, st.start + scheduled, signal);
    if (st.stopped || !st.send(r.value, scheduled)) break;
  }
  await source.return?.();
}

/** One closed-loop phase: `concurrency` clients between start_us and end_us, each waiting think_us after an answer. */
async function runClosed(st: RunState, phase: ClosedLoopPhase, sampler: RequestSampler, speed: number): Promise<void> {
  const { clock, signal } = st.opts;
  await sleepUntil(clock, st.start + phase.start_us / speed, signal);
  const endAt = st.start + phase.end_us / speed;
  const client = async () => {
    while (!st.stopped && clock.now() < endAt) {
      const scheduled = st.elapsedUs();
      let sent = true;
      await new Promise<void>((answered) => (sent = st.send(sampler.sample(scheduled), scheduled, answered)) || answered());
      if (!sent) return;
      if (phase.think_us > 0) await sleepUntil(clock, clock.now() + phase.think_us / speed, signal);
    }
  };
  await Promise.all(Array.from({ length: phase.concurrency }, client));
}

/** Runs open- and closed-loop work side by side until both are done (or stopped), then awaits every answer. */
export async function runLoad(target: InferTarget, work: LoadWork, opts: RunOptions): Promise<RunResult> {
  const speed = opts.speed ?? 1;
  if (!(speed > 0)) throw new Error(`speed must be > 0, got ${speed}`);
  const closed = work.closed ?? [];
  if (closed.length > 0 && !work.sampler) throw new Error('closed-loop phases need the plan sampler');
  // One signal for the run's loops: the caller's stop, or the first loop that fails stops the others.
  const stop = new AbortController();
  const onStop = () => stop.abort();
  if (opts.signal?.aborted) stop.abort();
  opts.signal?.addEventListener('abort', onStop, { once: true });
  const st = new RunState(target, { ...opts, signal: stop.signal });
  let error: string | undefined;
  const loops = [work.open ? runOpen(st, work.open, speed) : undefined, ...closed.map((p) => runClosed(st, p, work.sampler!, speed))].map((p) =>
    Promise.resolve(p).catch((err: unknown) => {
      error ??= err instanceof Error ? err.message : String(err);
      stop.abort();
    }),
  );
  await Promise.all(loops);
  opts.signal?.removeEventListener('abort', onStop);
  const result = await st.finish();
  return error === undefined ? result : { ...result, error };
}

/** Runs a whole plan: its open-loop stream and its closed-loop phases. */
export function runPlan(target: InferTarget, plan: LoadPlan, opts: RunOptions): Promise<RunResult> {
  return runLoad(target, planWork(plan), opts);
}

function toCall(a: Arrival, model: string | undefined, version: string | undefined): InferCall {
  const m = a.model || model;
  if (!m) throw new Error(`arrival at ${a.t_us} us names no model and the run has no target model`);
  // The run's version applies to the run's model only; other models of a mix go to their latest version.
  return { model: m, version: a.version ?? (m === model ? version : undefined), batchSize: a.batch_size, shape: a.shape, priority: a.priority, timeoutUs: a.timeout_us };
}

/** One request as perf's step load keeps it (its windows are short and bounded; a run keeps histograms). */
export interface RequestRecord {
  /** when it was sent, µs since the run started */
  sent_us: number;
  /** how late the send was against the schedule (open loop), µs */
  lag_us: number;
  latency_us: number;
  batch_size: number;
  outcome: import('./targets').InferOutcome;
}

