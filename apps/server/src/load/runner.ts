/**
 * Drives a target with load: open loop (an arrival schedule, replayed on the wall clock at a chosen
 * speed, whatever the answers do: how real traffic behaves) or closed loop (N clients each sending the
 * next request when the previous one is answered: perf_analyzer's concurrency mode).
 *
 * Stopping stops sending; requests already sent are still awaited, so every request counts exactly once.
 */
import type { Arrival, ArrivalPlan } from '@inferscope/core/load/index.ts';
import type { InferCall, InferOutcome, InferTarget } from './targets';

/** One arrival of an open-loop schedule: core's trace/arrival record (model '' = the run's target model). */
export type LoadArrival = Arrival;

export interface RequestRecord {
  /** when it was sent, µs since the run started */
  sent_us: number;
  /** how late the send was against the schedule (open loop), µs */
  lag_us: number;
  latency_us: number;
  batch_size: number;
  outcome: InferOutcome;
}

export interface RunCounters {
  sent: number;
  answered: number;
  errors: number;
  elapsed_s: number;
}

export interface RunOptions {
  signal?: AbortSignal;
  /** 2 = twice as fast as recorded */
  speed?: number;
  /** called at most every `progressEveryMs` with running counters */
  onProgress?: (c: RunCounters) => void;
  progressEveryMs?: number;
  /** keep every request's record (for percentiles); off for very long runs */
  keepRecords?: boolean;
  /** model for arrivals whose model is '' (scenarios without a model mix) */
  model?: string;
  /** version of `model` for arrivals that name none (absent = the latest READY version) */
  version?: string;
}

export interface RunResult extends RunCounters {
  records: RequestRecord[];
  stopped: boolean;
}

const nowUs = () => performance.now() * 1000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

class RunState {
  readonly start = nowUs();
  readonly records: RequestRecord[] = [];
  readonly inFlight = new Set<Promise<void>>();
  sent = 0;
  answered = 0;
  errors = 0;
  private lastProgress = 0;
  constructor(private readonly opts: RunOptions) {}

  counters(): RunCounters {
    return { sent: this.sent, answered: this.answered, errors: this.errors, elapsed_s: (nowUs() - this.start) / 1e6 };
  }

  progress(force = false): void {
    if (!this.opts.onProgress) return;
    const t = Date.now();
    if (!force && t - this.lastProgress < (this.opts.progressEveryMs ?? 200)) return;
    this.lastProgress = t;
    this.opts.onProgress(this.counters());
  }

  send(target: InferTarget, call: InferCall, scheduledUs: number): Promise<void> {
    const sentAt = nowUs();
    this.sent++;
    const p = target.infer(call).then(
      (outcome) => this.done(call, sentAt, scheduledUs, outcome),
      (err: unknown) => this.done(call, sentAt, scheduledUs, { ok: false, status: 0, error: String(err) }),
    );
    this.inFlight.add(p);
    void p.finally(() => this.inFlight.delete(p));
    return p;
  }

  private done(call: InferCall, sentAt: number, scheduledUs: number, outcome: InferOutcome): void {
    this.answered++;
    if (!outcome.ok) this.errors++;
    if (this.opts.keepRecords !== false)
      this.records.push({ sent_us: sentAt - this.start, lag_us: Math.max(0, sentAt - this.start - scheduledUs), latency_us: nowUs() - sentAt, batch_size: call.batchSize, outcome });
    this.progress();
  }

  async finish(stopped: boolean): Promise<RunResult> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
    this.progress(true);
    return { ...this.counters(), records: this.records, stopped };
  }
}

/** Open loop: sends each arrival at its time (divided by speed), never waiting for answers. */
export async function runArrivals(target: InferTarget, arrivals: readonly LoadArrival[], opts: RunOptions = {}): Promise<RunResult> {
  const st = new RunState(opts);
  const complete = await runArrivalsInto(st, target, arrivals, opts);
  return st.finish(!complete);
}

/** Returns false when it was stopped before sending every arrival. */
async function runArrivalsInto(st: RunState, target: InferTarget, arrivals: readonly LoadArrival[], opts: RunOptions): Promise<boolean> {
  const speed = opts.speed ?? 1;
  if (!(speed > 0)) throw new Error(`speed must be > 0, got ${speed}`);
  let i = 0;
  while (i < arrivals.length && !opts.signal?.aborted) {
    const elapsed = nowUs() - st.start;
    // Send everything that is due: at high rates one timer wake-up covers several arrivals.
    while (i < arrivals.length && arrivals[i].t_us / speed <= elapsed) {
      const a = arrivals[i++];
      void st.send(target, toCall(a, opts.model, opts.version), a.t_us / speed);
    }
    if (i >= arrivals.length) break;
    const waitMs = (arrivals[i].t_us / speed - (nowUs() - st.start)) / 1000;
    // setTimeout fires ~1 ms late at best; wake a little early and finish on setImmediate.
    await (waitMs > 2 ? abortableSleep(waitMs - 1, opts.signal) : new Promise<void>((r) => setImmediate(r)));
  }
  return i >= arrivals.length;
}

function toCall(a: Arrival, model: string | undefined, version: string | undefined): InferCall {
  const m = a.model || model;
  if (!m) throw new Error(`arrival at ${a.t_us} us names no model and the run has no target model`);
  // The run's version applies to the run's model only; other models of a mix go to their latest version.
  return { model: m, version: a.version ?? (m === model ? version : undefined), batchSize: a.batch_size, shape: a.shape, priority: a.priority, timeoutUs: a.timeout_us };
}

/**
 * Runs a whole scenario plan: its open-loop arrivals on the wall clock and, side by side, its closed-loop
 * phases (`concurrency` clients between start_us and end_us, each waiting think_us after an answer and
 * drawing request attributes from the plan's sampler).
 */
export async function runPlan(target: InferTarget, plan: ArrivalPlan, opts: RunOptions & { model: string }): Promise<RunResult> {
  const st = new RunState(opts);
  const speed = opts.speed ?? 1;
  const open = plan.arrivals.length > 0 ? runArrivalsInto(st, target, plan.arrivals, opts) : Promise.resolve(true);
  const closed = plan.closed.map(async (phase) => {
    const startMs = phase.start_us / speed / 1000 - (nowUs() - st.start) / 1000;
    if (startMs > 0) await abortableSleep(startMs, opts.signal);
    const endAt = st.start + phase.end_us / speed;
    const client = async () => {
      while (!opts.signal?.aborted && nowUs() < endAt) {
        await st.send(target, toCall(plan.sampler.sample(nowUs() - st.start), opts.model, opts.version), nowUs() - st.start);
        if (phase.think_us > 0) await abortableSleep(phase.think_us / 1000, opts.signal);
      }
    };
    await Promise.all(Array.from({ length: phase.concurrency }, client));
  });
  const [openDone] = await Promise.all([open, ...closed]);
  return st.finish(!openDone || (opts.signal?.aborted ?? false));
}

function abortableSleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** Nearest-rank percentile of a sorted array. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

export interface LatencySummary {
  count: number;
  ok: number;
  errors: number;
  throughput_per_s: number;
  latency_us: { p50: number; p90: number; p95: number; p99: number; mean: number };
  errors_by_status: Record<string, number>;
}

/** Client-side summary of a run (successful requests' latencies; throughput = answered OK / elapsed). */
export function summarize(result: RunResult): LatencySummary {
  const ok = result.records.filter((r) => r.outcome.ok);
  const lat = ok.map((r) => r.latency_us).sort((a, b) => a - b);
  const errors_by_status: Record<string, number> = {};
  for (const r of result.records) if (!r.outcome.ok) errors_by_status[r.outcome.status] = (errors_by_status[r.outcome.status] ?? 0) + 1;
  return {
    count: result.records.length,
    ok: ok.length,
    errors: result.records.length - ok.length,
    throughput_per_s: result.elapsed_s > 0 ? ok.length / result.elapsed_s : 0,
    latency_us: {
      p50: percentile(lat, 50),
      p90: percentile(lat, 90),
      p95: percentile(lat, 95),
      p99: percentile(lat, 99),
      mean: lat.length ? lat.reduce((a, b) => a + b, 0) / lat.length : 0,
    },
    errors_by_status,
  };
}
