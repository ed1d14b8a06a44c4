/**
 * Per-model aggregates for teaching mode, computed in the browser from the simulator's events (the live
 * server sends these itself). Same ModelAggregate shape, so the Performance view cannot tell the difference.
 */
import type { ModelAggregate, SchedulerEvent, StatsMessage } from '@inferscope/core';
import { percentile } from '@inferscope/core/stats';

interface Done { t: number; total: number; queue: number; compute: number; size: number }
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
  requests: number;
  mean_latency_us: number;
}


export class SimStats {
  private done = new Map<string, Done[]>();
  private batches = new Map<string, Batch[]>();
  private totals = new Map<string, { completed: number; rejected: number; failed: number; batches: number }>();
  private inFlight = new Map<string, number>();
  private memory = new Map<string, number>();
  /** (t, in flight after t) change points, for the time average */
  private flightSteps = new Map<string, { t: number; n: number }[]>();
  private figures = new Map<string, WindowFigures>();

  /** `cores`: the simulated host's, for the CPU chart (instances' busy time over what the cores offer) */
  constructor(private windowUs: number, private readonly cores = 1) {}

  /** The figures computed at the last snapshot (undefined before the first one). */
  windowFigures(key: string): WindowFigures | undefined {
    return this.figures.get(key);
  }

  private flight(key: string, t: number, delta: number): void {
    const n = Math.max(0, (this.inFlight.get(key) ?? 0) + delta);
    this.inFlight.set(key, n);
    push(this.flightSteps, key, { t, n });
  }

  setWindow(us: number): void {
    this.windowUs = us;
  }

  add(e: SchedulerEvent): void {
    if (e.type === 'memory') {
      const byModel = new Map<string, number>();
      for (const x of e.entries) byModel.set(x.model, (byModel.get(x.model) ?? 0) + x.bytes);
      this.memory = byModel;
      return;
    }
    const key = `${e.model}:${e.version}`;
    const tot = this.totals.get(key) ?? { completed: 0, rejected: 0, failed: 0, batches: 0 };
    this.totals.set(key, tot);
    switch (e.type) {
      case 'request.queued':
        this.flight(key, e.t, +1);
        break;
      case 'request.completed':
        this.flight(key, e.t, -1);
        push(this.done, key, { t: e.t, total: e.total_us, queue: e.queue_us, compute: e.compute_us, size: e.batch_size });
        if (e.ok) tot.completed++;
        else tot.failed++;
        break;
      case 'request.rejected':
        // A request refused at enqueue never counted as in flight; one that timed out in the queue did.
        if (e.reason === 'timeout') this.flight(key, e.t, -1);
        tot.rejected++;
        break;
      case 'batch.completed':
        push(this.batches, key, { t: e.t, size: e.size, compute: e.compute_us });
        tot.batches++;
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

  snapshot(nowUs: number, queued: (key: string) => Record<string, number>): StatsMessage {
    const from = nowUs - this.windowUs;
    const win = Math.max(1, Math.min(this.windowUs, nowUs)) / 1_000_000;
    const models: ModelAggregate[] = [];
    let busy = 0;
    for (const [key, tot] of this.totals) {
      const [model, version] = key.split(':');
      const done = trim(this.done.get(key) ?? [], from);
      const batches = trim(this.batches.get(key) ?? [], from);
      const lat = done.map((d) => d.total).sort((a, b) => a - b);
      const hist: Record<string, number> = {};
      for (const b of batches) hist[b.size] = (hist[b.size] ?? 0) + 1;
      const mean = (f: (d: Done) => number) => (done.length ? done.reduce((n, d) => n + f(d), 0) / done.length : 0);
      const span = Math.max(1, nowUs - Math.max(0, from));
      const busyUs = batches.reduce((n, b) => n + Math.min(b.compute, b.t - Math.max(0, from)), 0);
      busy += busyUs;
      this.figures.set(key, {
        window_us: span,
        samples: batches.reduce((n, b) => n + b.size, 0),
        busy_us: busyUs,
        mean_in_flight: this.meanInFlight(key, Math.max(0, from), nowUs),
        requests: done.length,
        mean_latency_us: mean((d) => d.total),
      });
      models.push({
        model, version, window_s: win,
        throughput_per_s: done.reduce((n, d) => n + d.size, 0) / win,
        requests_per_s: done.length / win,
        latency_us: { p50: percentile(lat, 0.5), p90: percentile(lat, 0.9), p99: percentile(lat, 0.99), mean: mean((d) => d.total) },
        queue_us_mean: mean((d) => d.queue),
        compute_us_mean: mean((d) => d.compute),
        avg_batch_size: batches.length ? batches.reduce((n, b) => n + b.size, 0) / batches.length : 0,
        batch_size_histogram: hist,
        queue_depth: queued(key),
        in_flight: this.inFlight.get(key) ?? 0,
        totals: { ...tot },
        memory_bytes: this.memory.get(model) ?? 0,
      });
    }
    // the simulated host's utilisation, as Triton's nv_cpu_utilization reads the real one: the instances'
    // compute over what the cores could give in the window (the CPU chart is not empty while a run plays)
    const span = Math.max(1, nowUs - Math.max(0, from));
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
