/**
 * Per model-version aggregates computed from the event stream: the figures the live gateway sends once a
 * second and the dashboard draws (throughput, percentiles, queue vs compute time, batch sizes, queue depth).
 * Windowed figures cover the last `windowUs`; totals run from the start. What counts as a failure, what is
 * pending and which window a request counts in are request-outcome.ts's decisions, shared by every fold.
 */
import type { RequestCompletedEvent, RequestRejectedEvent, SchedulerEvent } from '../events';
import { REQUEST_SOURCES, type FailureReason, type ModelAggregate, type RequestSource } from '../live/protocol';
import { failureOf, isCacheHit, leavesPending, noFailures, requestOutcome } from './request-outcome';
import { LogHistogram } from './histogram';
import { Rolling } from './rolling';
import { WaitingQueues } from './waiting-queues';

interface Slot {
  latency: LogHistogram;
  requests: number;
  samples: number;
  queueSum: number;
  computeSum: number;
  batches: number;
  batchSamples: number;
  batchSizes: Map<number, number>;
  arrivals: Record<RequestSource, number>;
}

const noArrivals = (): Record<RequestSource, number> => ({ http: 0, grpc: 0, in_process: 0 });

const newSlot = (): Slot => ({ latency: new LogHistogram(), requests: 0, samples: 0, queueSum: 0, computeSum: 0, batches: 0, batchSamples: 0, batchSizes: new Map(), arrivals: noArrivals() });
const resetSlot = (s: Slot): void => {
  s.latency.clear();
  s.requests = s.samples = s.queueSum = s.computeSum = s.batches = s.batchSamples = 0;
  s.batchSizes.clear();
  s.arrivals.http = s.arrivals.grpc = s.arrivals.in_process = 0;
};

export class ModelAggregator {
  model: string;
  version: string;
  private readonly window: Rolling<Slot>;
  private firstT = -1;
  private readonly waiting = new WaitingQueues();
  private inFlight = 0;
  private memoryBytes = 0;
  readonly totals = { completed: 0, rejected: 0, failed: 0, batches: 0 };
  /** response cache hits and misses (request.cache), undefined until the first */
  private cache: { hits: number; misses: number } | undefined;
  /** nv_inference_request_failure by reason: refusals before queueing are not failures (request-outcome.ts) */
  readonly failures: Record<FailureReason, number> = noFailures();
  /** requests that reached the version by source since the start (queued, or refused before queueing) */
  readonly arrivals = noArrivals();

  constructor(readonly windowUs = 1_000_000, model = '', version = '') {
    this.model = model;
    this.version = version;
    this.window = new Rolling(windowUs, newSlot, resetSlot);
  }

  add(e: SchedulerEvent): void {
    if (e.type === 'memory') {
      this.memoryBytes = 0;
      for (const m of e.entries) if (m.model === this.model && (!this.version || m.version === this.version)) this.memoryBytes += m.bytes;
      return;
    }
    if (this.model === '') {
      this.model = e.model;
      this.version = e.version;
    }
    if (e.model !== this.model || e.version !== this.version) return;
    if (this.firstT < 0) this.firstT = e.t;
    switch (e.type) {
      case 'request.queued':
        this.waiting.add(e.request_id, e.priority);
        this.inFlight++;
        this.arrived(e.protocol ?? 'in_process', e.t);
        return;
      case 'request.rejected':
        // refused before it was queued (invalid, queue full, unavailable): an arrival turned away, not a failure
        if (requestOutcome(e) === 'refused') this.arrived(e.protocol ?? 'in_process', e.t);
        this.totals.rejected++;
        this.failed(e);
        for (const id of leavesPending(e)) if (this.waiting.leave(id)) this.inFlight--;
        return;
      case 'batch.formed':
        for (const id of leavesPending(e)) this.waiting.leave(id);
        return;
      case 'batch.completed': {
        this.totals.batches++;
        const s = this.window.at(e.t);
        if (!s) return;
        s.batches++;
        s.batchSamples += e.size;
        s.batchSizes.set(e.size, (s.batchSizes.get(e.size) ?? 0) + 1);
        return;
      }
      case 'request.cache': {
        const c = (this.cache ??= { hits: 0, misses: 0 });
        if (!isCacheHit(e)) {
          c.misses++;
          return;
        }
        // a hit is a request answered: in the window's requests and latency, with no compute of its own
        c.hits++;
        this.answered(e.t, e.total_us, e.batch_size, e.queue_us, 0);
        return;
      }
      case 'request.completed': {
        this.inFlight--;
        for (const id of leavesPending(e)) this.waiting.leave(id);
        if (this.failed(e)) return;
        this.answered(e.t, e.total_us, e.batch_size, e.queue_us, e.compute_us);
        return;
      }
    }
  }

  /** a request answered successfully at `t`: the totals and the window's requests, latency and times */
  private answered(t: number, totalUs: number, batchSize: number, queueUs: number, computeUs: number): void {
    this.totals.completed++;
    const s = this.window.at(t);
    if (!s) return;
    s.latency.add(totalUs);
    s.requests++;
    s.samples += batchSize;
    s.queueSum += queueUs;
    s.computeSum += computeUs;
  }

  /** Counts the failure an answer records (request-outcome.ts); false when it is none. */
  private failed(e: RequestCompletedEvent | RequestRejectedEvent): boolean {
    const reason = failureOf(e);
    if (reason === undefined) return false;
    this.totals.failed++;
    this.failures[reason]++;
    return true;
  }

  private arrived(source: RequestSource, t: number): void {
    this.arrivals[source]++;
    const s = this.window.at(t);
    if (s) s.arrivals[source]++;
  }

  /** Where the window of `snapshot(nowUs)` begins: the start of its oldest slot (for figures a caller adds over the same window). */
  windowStartUs(nowUs: number): number {
    return nowUs - this.window.spanUs(nowUs);
  }

  snapshot(nowUs: number): ModelAggregate {
    const lat = new LogHistogram();
    const arrivalsInWindow = noArrivals();
    let requests = 0, samples = 0, queueSum = 0, computeSum = 0, batches = 0, batchSamples = 0;
    const sizes = new Map<number, number>();
    for (const s of this.window.live(nowUs)) {
      lat.merge(s.latency);
      requests += s.requests;
      samples += s.samples;
      queueSum += s.queueSum;
      computeSum += s.computeSum;
      batches += s.batches;
      batchSamples += s.batchSamples;
      for (const [k, v] of s.batchSizes) sizes.set(k, (sizes.get(k) ?? 0) + v);
      for (const src of REQUEST_SOURCES) arrivalsInWindow[src] += s.arrivals[src];
    }
    // right after start the window is not full yet: rates over the time actually observed
    const covered = this.window.spanUs(nowUs);
    const spanUs = this.firstT < 0 ? covered : Math.min(covered, Math.max(nowUs - this.firstT, this.window.slotUs));
    const windowS = spanUs / 1e6;
    const depth: Record<string, number> = {};
    for (const [k, v] of this.waiting.depthByLevel()) depth[String(k)] = v;
    return {
      model: this.model,
      version: this.version,
      window_s: windowS,
      throughput_per_s: samples / windowS,
      requests_per_s: requests / windowS,
      latency_us: { p50: lat.percentile(0.5), p90: lat.percentile(0.9), p99: lat.percentile(0.99), mean: lat.mean },
      queue_us_mean: requests ? queueSum / requests : 0,
      compute_us_mean: requests ? computeSum / requests : 0,
      avg_batch_size: batches ? batchSamples / batches : 0,
      batch_size_histogram: Object.fromEntries([...sizes].sort((a, b) => a[0] - b[0]).map(([k, v]) => [String(k), v])),
      queue_depth: depth,
      in_flight: this.inFlight,
      totals: { ...this.totals },
      failures: { ...this.failures },
      memory_bytes: this.memoryBytes,
      arrivals: {
        http: { total: this.arrivals.http, per_s: arrivalsInWindow.http / windowS },
        grpc: { total: this.arrivals.grpc, per_s: arrivalsInWindow.grpc / windowS },
        in_process: { total: this.arrivals.in_process, per_s: arrivalsInWindow.in_process / windowS },
      },
      ...(this.cache ? { cache: { ...this.cache } } : {}),
    };
  }
}

/** Routes a mixed event stream to one aggregator per model version. */
export class AggregatorSet {
  private readonly byKey = new Map<string, ModelAggregator>();
  constructor(readonly windowUs = 1_000_000) {}

  // Events come in runs of one model version: remember the last aggregator so the hot path builds no key.
  private last: ModelAggregator | undefined;

  /** the last memory event: a version first seen after it starts with its bytes, not 0 until the next one */
  private memory: Extract<SchedulerEvent, { type: 'memory' }> | undefined;

  add(e: SchedulerEvent): void {
    if (e.type === 'memory') {
      this.memory = e;
      for (const a of this.byKey.values()) a.add(e);
      return;
    }
    let a = this.last;
    if (a === undefined || a.model !== e.model || a.version !== e.version) {
      const key = `${e.model}\u0000${e.version}`;
      a = this.byKey.get(key);
      if (!a) {
        this.byKey.set(key, (a = new ModelAggregator(this.windowUs, e.model, e.version)));
        if (this.memory) a.add(this.memory);
      }
      this.last = a;
    }
    a.add(e);
  }

  snapshot(nowUs: number): ModelAggregate[] {
    return [...this.byKey.values()].map((a) => a.snapshot(nowUs));
  }

  get(model: string, version: string): ModelAggregator | undefined {
    return this.byKey.get(`${model}\u0000${version}`);
  }
}

/**
 * Little's law (L = λW) from an aggregate: how many requests should be in the system given the arrival rate
 * and the mean latency, next to how many are. A gap between them means the window is not in steady state.
 */
export function littlesLaw(a: ModelAggregate): { arrival_rate_per_s: number; mean_latency_s: number; predicted_in_system: number; observed_in_flight: number } {
  const lambda = a.requests_per_s;
  const w = a.latency_us.mean / 1e6;
  return { arrival_rate_per_s: lambda, mean_latency_s: w, predicted_in_system: lambda * w, observed_in_flight: a.in_flight };
}
