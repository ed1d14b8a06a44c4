/**
 * A/B comparison: the same traffic (a trace, or a scenario + seed, so the arrivals are identical) under two
 * configurations of one model. Apply A, run, collect; apply B, run, collect; restore what was there
 * before. Client figures come from the runner, server figures (batch sizes, rejections) from the bus.
 */
import type { LoadPlan } from '@inferscope/core/load/index.ts';
import { RealClock, type Clock } from '@inferscope/core/clock/index.ts';
import type { ConfigChange, DynamicBatchingPatch, EventBus } from '@inferscope/core';
import { parseLivePath } from '@inferscope/core/live-config/index.ts';
import type { ControlTarget } from '../live/types';
import { runPlan, type LatencySummary } from './runner';
import type { InferTarget } from './targets';

export interface ABVariant {
  label: string;
  patch: DynamicBatchingPatch;
}

export interface ServerSide {
  batches: number;
  avg_batch_size: number;
  batch_size_histogram: Record<string, number>;
  completed: number;
  rejected: number;
  /** mean time requests waited in the queue, µs (the price of a longer max_queue_delay) */
  queue_us_mean: number;
}

export interface ABSide {
  label: string;
  patch: DynamicBatchingPatch;
  client: LatencySummary;
  server: ServerSide;
}

/** Measures the server side of one run: started before the run, stopped after every answer is in. */
export type ServerWatcher = () => Promise<{ stop(): Promise<ServerSide> }>;

export interface ABOptions {
  model: string;
  version?: string;
  control: Pick<ControlTarget, 'updateDynamicBatching'>;
  /** in process: the bus; remote: a statistics-API watcher (statsApiWatcher) */
  server: { bus: EventBus } | { watch: ServerWatcher };
  target: InferTarget;
  /** the traffic, replayed identically for both sides (a lazy plan: each side reads a fresh stream) */
  plan: LoadPlan;
  /** default: the real clock */
  clock?: Clock;
  a: ABVariant;
  b: ABVariant;
  /** pause between the two runs so queues are empty when B starts */
  settleMs?: number;
  by?: string;
}

export interface ABReport {
  model: string;
  requests: number;
  a: ABSide;
  b: ABSide;
  restored: DynamicBatchingPatch;
}

/** Collects what the scheduler did for one model while a run lasts, from its events. */
export function busWatcher(bus: EventBus, model: string): ServerWatcher {
  return async () => {
    const w = watchBus(bus, model);
    return { stop: async () => w.stop() };
  };
}

function watchBus(bus: EventBus, model: string): { stop: () => ServerSide } {
  const hist: Record<string, number> = {};
  let batches = 0;
  let samples = 0;
  let completed = 0;
  let rejected = 0;
  let queueSum = 0;
  const off = bus.on((e) => {
    if (e.type === 'memory' || e.model !== model) return;
    if (e.type === 'batch.formed') {
      batches++;
      samples += e.size;
      hist[e.size] = (hist[e.size] ?? 0) + 1;
    } else if (e.type === 'request.completed' && e.ok) {
      completed++;
      queueSum += e.queue_us;
    }
    else if (e.type === 'request.rejected') rejected++;
  });
  return {
    stop() {
      off();
      return { batches, avg_batch_size: batches ? samples / batches : 0, batch_size_histogram: hist, completed, rejected, queue_us_mean: completed ? queueSum / completed : 0 };
    },
  };
}

/** The patch that undoes a series of changes: for each field, the value before the first change. */
export function restorePatch(changes: readonly ConfigChange[]): DynamicBatchingPatch {
  const out: Record<string, unknown> = {};
  for (const c of changes) {
    const path = parseLivePath(c.path);
    const top = path?.kind === 'max_batch_size' ? 'max_batch_size' : path?.kind === 'dynamic_batching_field' ? path.field : undefined;
    if (top === undefined || top in out) continue;
    out[top] = c.old ?? (top === 'preferred_batch_size' ? [] : undefined);
    if (out[top] === undefined) delete out[top];
  }
  return out as DynamicBatchingPatch;
}

export async function runAB(o: ABOptions): Promise<ABReport> {
  const by = o.by ?? 'ab';
  const applied: ConfigChange[] = [];
  const clock = o.clock ?? new RealClock();
  const sent: number[] = [];
  const side = async (v: ABVariant): Promise<ABSide> => {
    applied.push(...(await o.control.updateDynamicBatching(o.model, o.version, v.patch, by)));
    const watcher = 'bus' in o.server ? busWatcher(o.server.bus, o.model) : o.server.watch;
    const watch = await watcher();
    const result = await runPlan(o.target, o.plan, { model: o.model, version: o.version, clock });
    sent.push(result.sent);
    // answers are all in; the scheduler's last events were emitted before them
    return { label: v.label, patch: v.patch, client: result.summary, server: await watch.stop() };
  };
  let a: ABSide;
  let b: ABSide;
  const restore = () => restorePatch(applied);
  try {
    a = await side(o.a);
    await new Promise((r) => setTimeout(r, o.settleMs ?? 200));
    b = await side(o.b);
  } finally {
    const r = restore();
    if (Object.keys(r).length > 0) await o.control.updateDynamicBatching(o.model, o.version, r, by);
  }
  return { model: o.model, requests: sent[0], a, b, restored: restore() };
}

/** The two sides next to each other, one figure per line. */
export function formatABReport(r: ABReport): string {
  const rows: [string, (s: ABSide) => string][] = [
    ['config', (s) => JSON.stringify(s.patch)],
    ['throughput (req/s)', (s) => s.client.throughput_per_s.toFixed(1)],
    ['p50 latency (us)', (s) => String(Math.round(s.client.latency_us.p50))],
    ['p99 latency (us)', (s) => String(Math.round(s.client.latency_us.p99))],
    ['send lag p99 (us)', (s) => String(Math.round(s.client.send_lag_us.p99))],
    ['avg batch size', (s) => s.server.avg_batch_size.toFixed(2)],
    ['server queue (us)', (s) => String(Math.round(s.server.queue_us_mean))],
    ['batches', (s) => String(s.server.batches)],
    ['completed', (s) => String(s.client.ok)],
    ['rejected/failed', (s) => String(s.client.errors)],
  ];
  const w0 = Math.max(...rows.map(([n]) => n.length));
  const colA = rows.map(([, f]) => f(r.a));
  const w1 = Math.max(r.a.label.length, ...colA.map((x) => x.length));
  const lines = [`A/B on ${r.model}, ${r.requests} identical arrivals per side`, `${''.padEnd(w0)}  ${r.a.label.padEnd(w1)}  ${r.b.label}`];
  rows.forEach(([name, f], i) => lines.push(`${name.padEnd(w0)}  ${colA[i].padEnd(w1)}  ${f(r.b)}`));
  return lines.join('\n');
}
