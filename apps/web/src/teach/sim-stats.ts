/**
 * Per-model aggregates for teaching mode, computed in the browser from the simulator's events (the live
 * server sends these itself). The aggregates are core's own fold (AggregatorSet, the one the server's
 * gateway runs), so failures, latency, pending and the window are decided as on a live server
 * (stats/request-outcome.ts) and the Performance view cannot tell the difference. This adds only what
 * teaching shows besides: the formula cards' figures over that same window, and the simulated host's CPU.
 */
import type { SchedulerEvent, StatsMessage } from '@inferscope/core';
import { AggregatorSet, failureOf, requestOutcome, type ModelAggregator } from '@inferscope/core/stats';

interface Done { t: number; total: number }
interface Batch { t: number; size: number; compute: number }

/**
 * Figures of one model over the window of the last snapshot, the same window the charts show: what the
 * formula cards plug in, so a card and the chart beside it can never disagree about the data.
 */
export interface WindowFigures {
  window_us: number;
  /** samples of the batches that completed in the window */
  samples: number;
  /** instance busy time inside the window (each batch's compute clipped to the window) */
  busy_us: number;
  /** time-averaged requests in flight (queued or running) over the window */
  mean_in_flight: number;
  /** requests answered successfully in the window (the aggregate's requests_per_s × its window) */
  requests: number;
  /** their mean latency (the aggregate's latency_us.mean) */
  mean_latency_us: number;
}


export class SimStats {
  private aggregates: AggregatorSet;
  /** every event added, so a new window refolds what was shown (the engine keeps the same events anyway) */
  private readonly events: SchedulerEvent[] = [];
  private done = new Map<string, Done[]>();
  private batches = new Map<string, Batch[]>();
  private inFlight = new Map<string, number>();
  /** (t, in flight after t) change points, for the time average */
  private flightSteps = new Map<string, { t: number; n: number }[]>();
  private figures = new Map<string, WindowFigures>();

  /** `cores`: the simulated host's, for the CPU chart (instances' busy time over what the cores offer) */
  constructor(private windowUs: number, private readonly cores = 1) {
    this.aggregates = new AggregatorSet(windowUs);
  }

  /** The figures computed at the last snapshot (undefined before the first one). */
  windowFigures(key: string): WindowFigures | undefined {
    return this.figures.get(key);
  }

  private flight(key: string, t: number, delta: number): void {
    const n = Math.max(0, (this.inFlight.get(key) ?? 0) + delta);
    this.inFlight.set(key, n);
    push(this.flightSteps, key, { t, n });
  }

  /** A new window: the aggregates are refolded over it from the events seen so far (totals are kept). */
  setWindow(us: number): void {
    if (us === this.windowUs) return;
    this.windowUs = us;
    this.aggregates = new AggregatorSet(us);
    for (const e of this.events) this.aggregates.add(e);
  }

  add(e: SchedulerEvent): void {
    this.events.push(e);
    this.aggregates.add(e);
    if (e.type === 'memory') return;
    const key = `${e.model}:${e.version}`;
    switch (e.type) {
      case 'request.queued':
        this.flight(key, e.t, +1);
        break;
      case 'request.completed':
        this.flight(key, e.t, -1);
        if (failureOf(e) === undefined) push(this.done, key, { t: e.t, total: e.total_us });
        break;
      case 'request.rejected':
        // a request refused after it was queued was in flight; one refused at the door never was
        if (requestOutcome(e) === 'refused_queued') this.flight(key, e.t, -1);
        break;
      case 'batch.completed':
        push(this.batches, key, { t: e.t, size: e.size, compute: e.compute_us });
        break;
    }
  }

  private meanInFlight(key: string, from: number, to: number): number {
    const steps = this.flightSteps.get(key) ?? [];
    // keep one step at or before the window start: the level the window begins with
    let first = 0;
    while (first + 1 < steps.length && steps[first + 1].t <= from) first++;
    if (first > 0) steps.splice(0, first);
    return timeAverage(steps, 0, from, to);
  }

  /** The window figures of one model over its aggregate's window (the aggregator decides where it starts). */
  private windowFiguresOf(key: string, agg: ModelAggregator, nowUs: number): WindowFigures {
    const from = Math.max(0, agg.windowStartUs(nowUs));
    const done = trim(this.done.get(key) ?? [], from);
    const batches = trim(this.batches.get(key) ?? [], from);
    return {
      window_us: Math.max(1, nowUs - from),
      samples: batches.reduce((n, b) => n + b.size, 0),
      busy_us: batches.reduce((n, b) => n + Math.min(b.compute, b.t - from), 0),
      mean_in_flight: this.meanInFlight(key, from, nowUs),
      requests: done.length,
      mean_latency_us: done.length ? done.reduce((n, d) => n + d.total, 0) / done.length : 0,
    };
  }

  snapshot(nowUs: number): StatsMessage {
    const models = this.aggregates.snapshot(nowUs);
    let busy = 0;
    let span = 1;
    for (const a of models) {
      const key = `${a.model}:${a.version}`;
      const f = this.windowFiguresOf(key, this.aggregates.get(a.model, a.version)!, nowUs);
      this.figures.set(key, f);
      busy += f.busy_us;
      span = Math.max(span, f.window_us);
    }
    // the simulated host's utilisation, as Triton's nv_cpu_utilization reads the real one: the instances'
    // compute over what the cores could give in the window (the CPU chart is not empty while a run plays)
    return { t: nowUs, wall_ms: Date.now(), models, cpu: { utilization: Math.min(1, busy / (this.cores * span)) } };
  }
}

export interface FlightStep { t: number; n: number }

/** Time average of a step function (value n from t on) over [from, to]. */
export function timeAverage(steps: readonly FlightStep[], before: number, from: number, to: number): number {
  let area = 0;
  let at = from;
  let level = before;
  for (const s of steps) {
    if (s.t <= from) {
      level = s.n;
      continue;
    }
    if (s.t >= to) break;
    area += level * (s.t - at);
    at = s.t;
    level = s.n;
  }
  area += level * (to - at);
  return to > from ? area / (to - from) : level;
}

function push<T>(m: Map<string, T[]>, key: string, v: T): void {
  const list = m.get(key);
  if (list) list.push(v);
  else m.set(key, [v]);
}

/** Drop entries older than the window (they arrive in time order). */
function trim<T extends { t: number }>(list: T[], from: number): T[] {
  let i = 0;
  while (i < list.length && list[i].t < from) i++;
  if (i > 0) list.splice(0, i);
  return list;
}
