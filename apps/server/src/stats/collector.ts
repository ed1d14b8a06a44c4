/**
 * Triton's per-model statistics (the `statistics` extension), built only from the EventBus: no coupling
 * to scheduler internals. Durations arrive in microseconds and are reported in nanoseconds, as Triton does.
 *
 * Mapping (events.ts -> Triton):
 * - request.completed ok   -> success (total time), queue, compute_*; inference_count += its batch size
 * - request.completed !ok  -> fail (total time), reason CANCELED when its code is CANCELLED (a client that
 *   left before its instance began it: the batch was taken back and never ran; or the model answered it
 *   CANCELLED), else BACKEND
 * - request.rejected after it was queued (timeout, drained by an unload) -> fail (time it was queued).
 *   A request refused at the door (invalid: 400, queue full: 503) is not counted, as in Triton, where
 *   only requests that were enqueued report statistics (InferenceRequest::Run returns the enqueue error
 *   to the front end without any).
 * - batch.completed ok     -> execution_count, batch_stats[size]
 * - an ensemble's own request.completed ok (`steps` set) -> also one execution of its batch size, timed
 *   by the sum of its steps' compute (Triton's ensemble scheduler reports it so); its composing models
 *   report their step requests like any other requests
 * - model.state LOADING / UNAVAILABLE -> the version's figures are dropped: Triton's statistics belong to
 *   a loaded model, so a reload starts from zero and an unloaded model is not listed.
 * Durations are accumulated as integer nanoseconds (Triton's are uint64), each one whole microseconds
 * (the events' unit), so the Prometheus `_duration_us` counters read from these same totals
 * (metrics/inference-metrics.ts) are exact: ns / 1000, never a second rounding.
 * Besides the extension's figures it keeps what Triton's metrics add per version: the failures by
 * reason (they sum to fail.count), the requests queued and not yet in a batch (pending), and the load
 * duration (LOADING -> READY). One fold, so the extension and /metrics cannot disagree.
 * compute_input / compute_output are what the executor measured (core's ComputePhases: the backend's
 * tensor conversions on both sides of the hand-off to its worker thread or stub process) and
 * compute_infer is the rest of the batch's span (events.ts computeSplit); each request of a batch
 * reports its batch's figures, as in Triton. An ensemble's own request reports its steps' compute as
 * compute_infer.
 * - request.cache (the response cache, events.ts) -> a hit is a success with its queue time (both count
 *   it) and cache_hit, and nothing else: no inference, execution, compute or batch_stats, as Triton's
 *   UpdateSuccessCacheHit; a miss adds cache_miss (lookup + insert) and adds that time to success's ns
 *   without counting the request again (it was counted by its request.completed), as UpdateSuccessCacheMiss.
 * - request.response (a decoupled model's responses) -> response_stats[index], as Triton's core folds
 *   backend-reported response statistics: success adds compute_infer, compute_output and success
 *   (their sum); fail adds compute_infer (+ compute_output when outputs were read) and fail; empty (a
 *   final flag alone) adds compute_infer and empty_response; cancel adds cancel. The request itself is
 *   still counted once, by its request.completed. (Triton's python backend reports no response
 *   statistics, so Triton leaves this map empty for python models; InferScope fills it.)
 */
import { computeSplit, type EventBus, type FailureReason, type SchedulerEvent } from '@inferscope/core';
import { failureOf, isCacheHit, leavesPending, noFailures } from '@inferscope/core/stats';
import { errors } from '@inferscope/core';
import { PerVersion } from './per-version';

export interface Duration {
  count: number;
  ns: number;
}

export interface BatchStat {
  batch_size: number;
  compute_input: Duration;
  compute_infer: Duration;
  compute_output: Duration;
}

export interface ModelStat {
  name: string;
  version: string;
  /** ms since the epoch of the last successful inference, 0 = never */
  last_inference: number;
  inference_count: number;
  execution_count: number;
  inference_stats: {
    success: Duration;
    fail: Duration;
    queue: Duration;
    compute_input: Duration;
    compute_infer: Duration;
    compute_output: Duration;
    cache_hit: Duration;
    cache_miss: Duration;
  };
  /** per response index ("0", "1", ...): Triton's InferResponseStatistics */
  response_stats: Record<string, ResponseStat>;
  batch_stats: BatchStat[];
  memory_usage: never[];
}

export interface ResponseStat {
  compute_infer: Duration;
  compute_output: Duration;
  success: Duration;
  fail: Duration;
  empty_response: Duration;
  cancel: Duration;
}

interface Acc {
  name: string;
  version: string;
  last: number;
  inferences: number;
  executions: number;
  success: Duration;
  fail: Duration;
  queue: Duration;
  input: Duration;
  infer: Duration;
  output: Duration;
  batches: Map<number, BatchAcc>;
  failures: Record<FailureReason, number>;
  pending: number;
  responses: Map<number, ResponseStat>;
  cacheHit: Duration;
  cacheMiss: Duration;
}

interface BatchAcc {
  input: Duration;
  infer: Duration;
  output: Duration;
}

/** One version's statistics with what Triton's metrics add to them (see the header). */
export interface VersionTotals {
  stat: ModelStat;
  failures: Record<FailureReason, number>;
  /** requests queued and not yet taken into a batch (Triton's nv_inference_pending_request_count) */
  pending: number;
  /** LOADING -> READY of the loaded version, when the collector saw both */
  loadSecs?: number;
}

export interface StatsCollectorOptions {
  /** wall clock in ms for last_inference; default Date.now */
  now?: () => number;
  /** the READY model versions: idle ones report zeros, the others are refused as Triton does */
  models?: () => Array<{ name: string; version: string }>;
}

const zero = (): Duration => ({ count: 0, ns: 0 });
/** whole microseconds, in nanoseconds: the one conversion every duration goes through */
const ns = (us: number): number => Math.round(us) * 1000;
/** one more of `d`, lasting `us` */
const add = (d: Duration, us: number): void => {
  d.count++;
  d.ns += ns(us);
};

export class StatsCollector {
  private readonly accs = new PerVersion<Acc>((name, version) => ({
    name, version, last: 0, inferences: 0, executions: 0,
    success: zero(), fail: zero(), queue: zero(), input: zero(), infer: zero(), output: zero(),
    batches: new Map(), failures: noFailures(), pending: 0, responses: new Map(),
    cacheHit: zero(), cacheMiss: zero(),
  }));
  /** scheduler-clock µs of a version's LOADING event, then its load duration once READY */
  private readonly loads = new PerVersion<{ sinceUs?: number; secs?: number }>(() => ({}));
  private readonly now: () => number;
  private readonly models?: () => Array<{ name: string; version: string }>;
  private readonly off: () => void;

  constructor(bus: EventBus, options: StatsCollectorOptions = {}) {
    this.now = options.now ?? Date.now;
    this.models = options.models;
    this.off = bus.on((e) => this.add(e));
  }

  close(): void {
    this.off();
  }

  private acc(model: string, version: string): Acc {
    return this.accs.get(model, version);
  }

  /** Fold one event in (public so tests can feed a synthetic stream without a bus). */
  add(e: SchedulerEvent): void {
    // pending and failures by core's one fold decision (stats/request-outcome.ts), as every other fold
    const leaving = leavesPending(e).length;
    if (leaving > 0 && 'version' in e) this.acc(e.model, e.version).pending -= leaving;
    switch (e.type) {
      case 'request.queued':
        this.acc(e.model, e.version).pending++;
        break;
      case 'request.completed': {
        const a = this.acc(e.model, e.version);
        if (e.ok) {
          add(a.success, e.total_us);
          add(a.queue, e.queue_us);
          const split = computeSplit(e);
          add(a.input, split.inputUs);
          add(a.infer, split.inferUs);
          add(a.output, split.outputUs);
          a.inferences += e.batch_size;
          a.last = this.now();
          // An ensemble request is one execution of its batch size, timed by its steps' compute (Triton).
          if (e.steps !== undefined) this.execution(a, e.batch_size, split);
        } else {
          add(a.fail, e.total_us);
          a.failures[failureOf(e)!]++;
        }
        break;
      }
      case 'request.rejected': {
        const reason = failureOf(e);
        if (reason === undefined) break; // refused at the door: never reached the model
        const a = this.acc(e.model, e.version);
        add(a.fail, Math.max(0, e.queued_us ?? 0));
        a.failures[reason]++;
        break;
      }
      case 'model.state':
        if (e.state === 'LOADING' || e.state === 'UNAVAILABLE') {
          this.accs.delete(e.model, e.version);
          this.loads.delete(e.model, e.version);
        }
        if (e.state === 'LOADING') this.loads.get(e.model, e.version).sinceUs = e.t;
        if (e.state === 'READY') {
          const load = this.loads.find(e.model, e.version);
          if (load?.sinceUs !== undefined) load.secs = Math.max(0, e.t - load.sinceUs) / 1e6;
          if (load) load.sinceUs = undefined;
        }
        break;
      case 'request.response': {
        const a = this.acc(e.model, e.version);
        let r = a.responses.get(e.index);
        if (!r) a.responses.set(e.index, (r = { compute_infer: zero(), compute_output: zero(), success: zero(), fail: zero(), empty_response: zero(), cancel: zero() }));
        const total = e.infer_us + e.output_us;
        if (e.outcome === 'cancel') {
          add(r.cancel, total);
          break;
        }
        add(r.compute_infer, e.outcome === 'success' ? e.infer_us : e.output_us > 0 ? e.infer_us : total);
        if (e.outcome === 'success' || (e.outcome === 'fail' && e.output_us > 0)) add(r.compute_output, e.output_us);
        add(e.outcome === 'success' ? r.success : e.outcome === 'fail' ? r.fail : r.empty_response, total);
        break;
      }
      case 'request.cache': {
        const a = this.acc(e.model, e.version);
        if (isCacheHit(e)) {
          add(a.success, e.total_us);
          add(a.queue, e.queue_us);
          add(a.cacheHit, e.cache_us);
        } else {
          a.success.ns += ns(e.cache_us);
          add(a.cacheMiss, e.cache_us);
        }
        break;
      }
      case 'batch.completed': {
        if (!e.ok) break;
        this.execution(this.acc(e.model, e.version), e.size, computeSplit(e));
        break;
      }
      default:
        break;
    }
  }

  private execution(a: Acc, size: number, split: ReturnType<typeof computeSplit>): void {
    a.executions++;
    let b = a.batches.get(size);
    if (!b) a.batches.set(size, (b = { input: zero(), infer: zero(), output: zero() }));
    add(b.input, split.inputUs);
    add(b.infer, split.inferUs);
    add(b.output, split.outputUs);
  }

  /**
   * Triton's `model_stats` for all models, one model (all versions), or one version. A named model or
   * version the server does not know is refused with Triton's message.
   */
  modelStats(name?: string, version?: string): ModelStat[] {
    return this.versions(name, version).map((m) => this.render(m.name, m.version));
  }

  /** Every listed version's statistics with the failures by reason, pending and load time (for /metrics). */
  totals(): VersionTotals[] {
    return this.versions().map((m) => {
      const a = this.accs.find(m.name, m.version);
      const secs = this.loads.find(m.name, m.version)?.secs;
      return {
        stat: this.render(m.name, m.version),
        failures: { ...(a?.failures ?? noFailures()) },
        pending: a?.pending ?? 0,
        ...(secs !== undefined ? { loadSecs: secs } : {}),
      };
    });
  }

  /** The versions that have statistics (all READY ones, or those seen on the bus without a list). */
  private versions(name?: string, version?: string): Array<{ name: string; version: string }> {
    const keys = new Map<string, { name: string; version: string }>();
    // A model that failed before any version loaded is listed with version '': it has no statistics.
    for (const m of this.models?.() ?? []) if (m.version !== '') keys.set(PerVersion.key(m.name, m.version), m);
    for (const [k, a] of this.accs.entries()) if (!this.models) keys.set(k, a);
    let rows = [...keys.values()];
    // Triton (TRITONSERVER_ServerModelStatistics): only READY versions have statistics; asking for any
    // other model or version is INVALID_ARG (400).
    if (name !== undefined) {
      rows = rows.filter((m) => m.name === name);
      if (rows.length === 0) throw errors.INVALID(`requested model '${name}' is not available`);
      if (version !== undefined) {
        rows = rows.filter((m) => m.version === version);
        if (rows.length === 0) throw errors.INVALID(`requested model version is not available for model '${name}'`);
      }
    }
    return rows.sort((a, b) => (a.name === b.name ? Number(a.version) - Number(b.version) : a.name < b.name ? -1 : 1));
  }

  private render(name: string, version: string): ModelStat {
    const a = this.accs.find(name, version);
    const copy = (d: Duration | undefined): Duration => ({ ...(d ?? zero()) });
    return {
      name,
      version,
      last_inference: a?.last ?? 0,
      inference_count: a?.inferences ?? 0,
      execution_count: a?.executions ?? 0,
      inference_stats: {
        success: { ...(a?.success ?? zero()) },
        fail: { ...(a?.fail ?? zero()) },
        queue: { ...(a?.queue ?? zero()) },
        compute_input: copy(a?.input),
        compute_infer: copy(a?.infer),
        compute_output: copy(a?.output),
        cache_hit: copy(a?.cacheHit),
        cache_miss: copy(a?.cacheMiss),
      },
      response_stats: Object.fromEntries([...(a?.responses ?? new Map<number, ResponseStat>())]
        .sort(([x], [y]) => x - y)
        .map(([index, r]) => [String(index), {
          compute_infer: copy(r.compute_infer), compute_output: copy(r.compute_output), success: copy(r.success),
          fail: copy(r.fail), empty_response: copy(r.empty_response), cancel: copy(r.cancel),
        }])),
      batch_stats: [...(a?.batches ?? new Map<number, BatchAcc>())]
        .sort(([x], [y]) => x - y)
        .map(([size, d]) => ({
          batch_size: size,
          compute_input: copy(d.input),
          compute_infer: copy(d.infer),
          compute_output: copy(d.output),
        })),
      memory_usage: [],
    };
  }
}
