/**
 * A/B comparison: the same traffic (a trace, or a scenario + seed, so the arrivals are identical) under two
 * configurations of one model, in interleaved rounds (A, B, A, B, ...) so a drift of the shared machine
 * falls on both sides alike; restore what was there before. Each figure is reported with its spread over
 * the rounds and a side is called better only when the spread separates them (core's ab-verdict.ts, the dashboard's A/B uses the same). Client
 * figures come from the runner, server figures (batch sizes, rejections) from the bus or the stats API.
 */
import type { LoadPlan } from '@inferscope/core/load';
import { RealClock, type Clock } from '@inferscope/core/clock';
import type { ConfigChange, EventBus } from '@inferscope/core';
import { parseLivePath, splitKnobPatch, type KnobPatch } from '@inferscope/core/live-config';
import { EventFold } from '@inferscope/core/stats';
import type { ControlTarget } from '../control/types';
import { runPlan, type LatencySummary } from '../loadgen/runner';
import type { InferTarget } from '../loadgen/targets';
import { spreadOf, verdictOf, type ABMetric, type ABVerdict, type Spread } from '@inferscope/core/load';

export interface ABVariant {
  label: string;
  /** core's one patch grammar (live-config/knobs.ts): dynamic batching fields and the instance count */
  patch: KnobPatch;
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

export interface ABRound {
  client: LatencySummary;
  server: ServerSide;
}

export interface ABSide extends ABRound {
  label: string;
  patch: KnobPatch;
  /** every round of this side, in the order run; `client`/`server` above are its median-throughput round */
  rounds: ABRound[];
  spread: Record<ABMetric, Spread>;
}

/** Measures the server side of one run: started before the run, stopped after every answer is in. */
export type ServerWatcher = () => Promise<{ stop(): Promise<ServerSide> }>;

export interface ABOptions {
  model: string;
  version?: string;
  control: Pick<ControlTarget, 'updateDynamicBatching' | 'setInstanceCount'>;
  /** in process: the bus; remote: a statistics-API watcher (statsApiWatcher) */
  server: { bus: EventBus } | { watch: ServerWatcher };
  target: InferTarget;
  /** the traffic, replayed identically for both sides (a lazy plan: each side reads a fresh stream) */
  plan: LoadPlan;
  /** default: the real clock */
  clock?: Clock;
  a: ABVariant;
  b: ABVariant;
  /** pause between two runs so queues are empty when the next starts */
  settleMs?: number;
  /** rounds per side, interleaved A, B, A, B... (default 1) */
  rounds?: number;
  by?: string;
}

export interface ABReport {
  model: string;
  requests: number;
  rounds: number;
  a: ABSide;
  b: ABSide;
  /** per figure: the better side, or null when the rounds' spread does not separate them */
  verdicts: ABVerdict[];
  restored: KnobPatch;
}

const METRICS: Record<ABMetric, (r: ABRound) => number> = {
  throughput_per_s: (r) => r.client.throughput_per_s,
  p50_us: (r) => r.client.latency_us.p50,
  p99_us: (r) => r.client.latency_us.p99,
  avg_batch_size: (r) => r.server.avg_batch_size,
};

function sideOf(v: ABVariant, rounds: ABRound[]): ABSide {
  const spread = Object.fromEntries(Object.entries(METRICS).map(([m, f]) => [m, spreadOf(rounds.map(f))])) as Record<ABMetric, Spread>;
  const byThroughput = [...rounds].sort((x, y) => x.client.throughput_per_s - y.client.throughput_per_s);
  const median = byThroughput[(byThroughput.length - 1) >> 1];
  return { label: v.label, patch: v.patch, client: median.client, server: median.server, rounds, spread };
}

/** Collects what the scheduler did for one model while a run lasts, from its events. */
export function busWatcher(bus: EventBus, model: string): ServerWatcher {
  return async () => {
    const w = watchBus(bus, model);
    return { stop: async () => w.stop() };
  };
}

function watchBus(bus: EventBus, model: string): { stop: () => ServerSide } {
  const fold = new EventFold({ models: new Set([model]) });
  const off = bus.on((e) => fold.add(e));
  return {
    stop() {
      off();
      return {
        batches: fold.batches, avg_batch_size: fold.avgBatchSize, batch_size_histogram: fold.batchHistogram(),
        completed: fold.completed, rejected: fold.rejected, queue_us_mean: fold.timed ? fold.queueSumUs / fold.timed : 0,
      };
    },
  };
}

/** The patch that undoes a series of changes: for each field, the value before the first change. */
export function restorePatch(changes: readonly ConfigChange[]): KnobPatch {
  const out: Record<string, unknown> = {};
  for (const c of changes) {
    const path = parseLivePath(c.path);
    const top =
      path?.kind === 'max_batch_size' ? 'max_batch_size'
        : path?.kind === 'dynamic_batching_field' ? path.field
          : path?.kind === 'instance_count' && path.group === 0 ? 'instance_count'
            : undefined;
    if (top === undefined || top in out) continue;
    out[top] = c.old ?? (top === 'preferred_batch_size' ? [] : undefined);
    if (out[top] === undefined) delete out[top];
  }
  return out as KnobPatch;
}

/** A patch applied through the control target: its batching fields, then the first group's instance count. */
async function applyPatch(o: ABOptions, patch: KnobPatch, by: string): Promise<ConfigChange[]> {
  const { batching, instances } = splitKnobPatch(patch);
  const changes: ConfigChange[] = [];
  if (Object.keys(batching).length > 0) changes.push(...(await o.control.updateDynamicBatching(o.model, o.version, batching, by)));
  if (instances !== undefined) changes.push(...(await o.control.setInstanceCount(o.model, o.version, undefined, instances, by)));
  return changes;
}

export async function runAB(o: ABOptions): Promise<ABReport> {
  const by = o.by ?? 'ab';
  const applied: ConfigChange[] = [];
  const clock = o.clock ?? new RealClock();
  const sent: number[] = [];
  const round = async (v: ABVariant): Promise<ABRound> => {
    applied.push(...(await applyPatch(o, v.patch, by)));
    const watcher = 'bus' in o.server ? busWatcher(o.server.bus, o.model) : o.server.watch;
    const watch = await watcher();
    const result = await runPlan(o.target, o.plan, { model: o.model, version: o.version, clock });
    sent.push(result.sent);
    // answers are all in; the scheduler's last events were emitted before them
    return { client: result.summary, server: await watch.stop() };
  };
  const rounds = Math.max(1, Math.floor(o.rounds ?? 1));
  const aRounds: ABRound[] = [];
  const bRounds: ABRound[] = [];
  const restore = () => restorePatch(applied);
  try {
    for (let i = 0; i < rounds; i++) {
      if (i > 0) await settle(o.settleMs);
      aRounds.push(await round(o.a));
      await settle(o.settleMs);
      bRounds.push(await round(o.b));
    }
  } finally {
    const r = restore();
    if (Object.keys(r).length > 0) await applyPatch(o, r, by);
  }
  const a = sideOf(o.a, aRounds);
  const b = sideOf(o.b, bRounds);
  const verdicts = (Object.keys(METRICS) as ABMetric[]).map((m) => verdictOf(m, { label: a.label, spread: a.spread[m] }, { label: b.label, spread: b.spread[m] }, rounds));
  return { model: o.model, requests: sent[0], rounds, a, b, verdicts, restored: restore() };
}

const settle = (ms = 200) => new Promise((r) => setTimeout(r, ms));

const fmt = (m: ABMetric, v: number) => (m === 'avg_batch_size' ? v.toFixed(2) : m === 'throughput_per_s' ? v.toFixed(1) : String(Math.round(v)));

/** A figure as median and range over the rounds ("1234 (1200-1300)"), or the one value of a single round. */
function withSpread(m: ABMetric, s: Spread, rounds: number): string {
  return rounds < 2 ? fmt(m, s.median) : `${fmt(m, s.median)} (${fmt(m, s.min)}-${fmt(m, s.max)})`;
}

/** The two sides next to each other, one figure per line. */
export function formatABReport(r: ABReport): string {
  const rows: [string, (s: ABSide) => string][] = [
    ['config', (s) => JSON.stringify(s.patch)],
    ['throughput (req/s)', (s) => withSpread('throughput_per_s', s.spread.throughput_per_s, r.rounds)],
    ['p50 latency (us)', (s) => withSpread('p50_us', s.spread.p50_us, r.rounds)],
    ['p99 latency (us)', (s) => withSpread('p99_us', s.spread.p99_us, r.rounds)],
    ['send lag p99 (us)', (s) => String(Math.round(s.client.send_lag_us.p99))],
    ['avg batch size', (s) => withSpread('avg_batch_size', s.spread.avg_batch_size, r.rounds)],
    ['server queue (us)', (s) => String(Math.round(s.server.queue_us_mean))],
    ['batches', (s) => String(s.server.batches)],
    ['completed', (s) => String(s.client.ok)],
    ['rejected/failed', (s) => String(s.client.errors)],
  ];
  const w0 = Math.max(...rows.map(([n]) => n.length));
  const colA = rows.map(([, f]) => f(r.a));
  const w1 = Math.max(r.a.label.length, ...colA.map((x) => x.length));
  const runs = r.rounds > 1 ? `${r.rounds} interleaved rounds per side (median and range)` : 'one round per side';
  const lines = [`A/B on ${r.model}, ${r.requests} identical arrivals per run, ${runs}`, `${''.padEnd(w0)}  ${r.a.label.padEnd(w1)}  ${r.b.label}`];
  rows.forEach(([name, f], i) => lines.push(`${name.padEnd(w0)}  ${colA[i].padEnd(w1)}  ${f(r.b)}`));
  lines.push('verdict:');
  for (const v of r.verdicts) lines.push(`  ${v.metric}: ${v.better ? `${v.better} is better` : 'no winner'} (${v.why})`);
  return lines.join('\n');
}
