/**
 * Per-model aggregates for teaching mode, computed in the browser from the simulator's events (the live
 * server sends these itself). Same ModelAggregate shape, so the Performance view cannot tell the difference.
 */
import type { ModelAggregate, SchedulerEvent, StatsMessage } from '@inferscope/core';

interface Done { t: number; total: number; queue: number; compute: number; size: number }
interface Batch { t: number; size: number }

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

export class SimStats {
  private done = new Map<string, Done[]>();
  private batches = new Map<string, Batch[]>();
  private totals = new Map<string, { completed: number; rejected: number; failed: number; batches: number }>();
  private inFlight = new Map<string, number>();
  private memory = new Map<string, number>();

  constructor(private windowUs: number) {}

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
        this.inFlight.set(key, (this.inFlight.get(key) ?? 0) + 1);
        break;
      case 'request.completed':
        this.inFlight.set(key, Math.max(0, (this.inFlight.get(key) ?? 0) - 1));
        push(this.done, key, { t: e.t, total: e.total_us, queue: e.queue_us, compute: e.compute_us, size: e.batch_size });
        if (e.ok) tot.completed++;
        else tot.failed++;
        break;
      case 'request.rejected':
        // A request refused at enqueue never counted as in flight; one that timed out in the queue did.
        if (e.reason === 'timeout') this.inFlight.set(key, Math.max(0, (this.inFlight.get(key) ?? 0) - 1));
        tot.rejected++;
        break;
      case 'batch.completed':
        push(this.batches, key, { t: e.t, size: e.size });
        tot.batches++;
        break;
    }
  }

  snapshot(nowUs: number, queued: (key: string) => Record<string, number>): StatsMessage {
    const from = nowUs - this.windowUs;
    const win = Math.max(1, Math.min(this.windowUs, nowUs)) / 1_000_000;
    const models: ModelAggregate[] = [];
    for (const [key, tot] of this.totals) {
      const [model, version] = key.split(':');
      const done = trim(this.done.get(key) ?? [], from);
      const batches = trim(this.batches.get(key) ?? [], from);
      const lat = done.map((d) => d.total).sort((a, b) => a - b);
      const hist: Record<string, number> = {};
      for (const b of batches) hist[b.size] = (hist[b.size] ?? 0) + 1;
      const mean = (f: (d: Done) => number) => (done.length ? done.reduce((n, d) => n + f(d), 0) / done.length : 0);
      models.push({
        model, version, window_s: win,
        throughput_per_s: done.reduce((n, d) => n + d.size, 0) / win,
        requests_per_s: done.length / win,
        latency_us: { p50: percentile(lat, 50), p90: percentile(lat, 90), p99: percentile(lat, 99), mean: mean((d) => d.total) },
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
    return { t: nowUs, wall_ms: Date.now(), models };
  }
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
