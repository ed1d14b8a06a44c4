/**
 * A/B compare on the live server, built from ordinary control messages so it works with any gateway:
 * apply setting A, run the scenario with a fixed seed (identical arrivals), collect the aggregates that
 * arrived during the run; apply B, run the same traffic, collect; restore the original setting.
 */
import type { ControlAck, ControlMessage, LoadProgress, StatsMessage } from '@inferscope/core';
import { S } from '../strings';

export interface AbSide {
  label: string;
  throughput: number;
  p50Us: number;
  p99Us: number;
  avgBatch: number;
  rejected: number;
  completed: number;
}

export interface AbDeps {
  send(msg: ControlMessage): Promise<ControlAck>;
  /** load progress by id, as the latest stats said */
  progress(id: string): LoadProgress | undefined;
  /** stats messages received since wall time `sinceMs` */
  statsSince(sinceMs: number): StatsMessage[];
  sleep(ms: number): Promise<void>;
  onPhase?(phase: string): void;
}

export interface AbRequest {
  model: string;
  version: string;
  scenario: string;
  rate: number;
  duration: number;
  seed: number;
  delayA: number;
  delayB: number;
  restoreDelay: number;
}

/** Mean of the per-second aggregates of one model over a run (seconds with no traffic are skipped). */
export function summarise(label: string, stats: StatsMessage[], model: string, version: string): AbSide {
  const aggs = stats.flatMap((s) => s.models.filter((a) => a.model === model && a.version === version && a.requests_per_s > 0));
  const mean = (f: (a: (typeof aggs)[number]) => number) => (aggs.length ? aggs.reduce((n, a) => n + f(a), 0) / aggs.length : 0);
  const first = stats.flatMap((s) => s.models.filter((a) => a.model === model && a.version === version))[0];
  const last = stats.flatMap((s) => s.models.filter((a) => a.model === model && a.version === version)).at(-1);
  return {
    label,
    throughput: mean((a) => a.throughput_per_s),
    p50Us: mean((a) => a.latency_us.p50),
    p99Us: mean((a) => a.latency_us.p99),
    avgBatch: mean((a) => a.avg_batch_size),
    rejected: (last?.totals.rejected ?? 0) - (first?.totals.rejected ?? 0),
    completed: (last?.totals.completed ?? 0) - (first?.totals.completed ?? 0),
  };
}

async function runSide(deps: AbDeps, req: AbRequest, label: string, delay: number): Promise<AbSide> {
  deps.onPhase?.(label);
  const set = await deps.send({ action: 'setDynamicBatching', model: req.model, version: req.version, max_queue_delay_microseconds: delay });
  if (!set.ok) throw new Error(`${label}: ${set.error}`);
  const started = Date.now();
  const ack = await deps.send({ action: 'startLoad', model: req.model, version: req.version, scenario: req.scenario, rate: req.rate, duration: req.duration, seed: req.seed });
  if (!ack.ok) throw new Error(`${label}: ${ack.error}`);
  const id = String(ack.id ?? '');
  const deadline = started + (req.duration + 15) * 1000;
  for (;;) {
    await deps.sleep(250);
    const p = deps.progress(id);
    if (p && p.state !== 'running') break;
    if (Date.now() > deadline) throw new Error(`${label}: the load run did not finish in time`);
  }
  await deps.sleep(1100); // one more stats message so the tail of the run is counted
  return summarise(S.abSide(label, `${delay} µs`), deps.statsSince(started), req.model, req.version);
}

export async function runAbCompare(deps: AbDeps, req: AbRequest): Promise<[AbSide, AbSide]> {
  try {
    const a = await runSide(deps, req, 'A', req.delayA);
    const b = await runSide(deps, req, 'B', req.delayB);
    return [a, b];
  } finally {
    await deps.send({ action: 'setDynamicBatching', model: req.model, version: req.version, max_queue_delay_microseconds: req.restoreDelay });
  }
}
