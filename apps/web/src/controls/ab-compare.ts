/**
 * A/B compare on the live server, built from ordinary control messages so it works with any gateway:
 * in interleaved rounds (A, B, A, B, ...) apply patch A (any of delay, preferred sizes, max batch,
 * instances), run the scenario with a fixed seed (identical arrivals), collect the aggregates that
 * arrived during the run; apply B, run the same traffic, collect; at the end restore the original values
 * of every field either side touched. The rounds' spread and the verdict come from core's ab-verdict (the
 * CLI's `ab --rounds` judges by the same rule). A run whose model served more requests than its own load
 * answered had other traffic on it, and says so.
 */
import type { ControlAck, ControlMessage, LoadProgress, StatsMessage } from '@inferscope/core';
import { S } from '../i18n/strings';
import { sideOfRuns, abVerdicts, type AbResult, type AbRun } from './ab-rounds';


/** What one side changes; absent fields keep their live value. */
export interface AbPatch {
  max_queue_delay_microseconds?: number;
  preferred_batch_size?: number[];
  max_batch_size?: number;
  instances?: number;
}

const KEYS: Record<string, keyof AbPatch> = { delay: 'max_queue_delay_microseconds', preferred: 'preferred_batch_size', max_batch: 'max_batch_size', instances: 'instances' };

/** `delay=2000 preferred=8,16 max_batch=32 instances=2` (any subset); a bare number is a delay in µs. */
export function parsePatch(text: string): AbPatch {
  const t = text.trim();
  if (/^\d+$/.test(t)) return { max_queue_delay_microseconds: Number(t) };
  const out: AbPatch = {};
  for (const part of t.split(/\s+/).filter(Boolean)) {
    const [k, v] = part.split('=');
    const key = KEYS[k];
    if (!key || v === undefined || v === '') throw new Error(`'${part}': write delay=µs, preferred=8,16, max_batch=N or instances=N`);
    const nums = v.split(',').map(Number);
    if (nums.some((n) => !Number.isInteger(n) || n < 0)) throw new Error(`'${part}': not a non-negative integer`);
    if (key === 'preferred_batch_size') out[key] = nums;
    else out[key] = nums[0];
  }
  if (Object.keys(out).length === 0) throw new Error('give at least one field, e.g. delay=2000');
  return out;
}

export const describePatch = (p: AbPatch): string =>
  Object.entries(p).map(([k, v]) => `${Object.entries(KEYS).find(([, f]) => f === k)?.[0] ?? k}=${Array.isArray(v) ? v.join(',') : v}`).join(' ');

/** The live values of the fields a patch touches (what the comparison restores afterwards). */
export function restoreFor(patches: AbPatch[], live: Required<AbPatch>): AbPatch {
  const out: AbPatch = {};
  for (const p of patches) for (const k of Object.keys(p) as (keyof AbPatch)[]) (out as Record<string, unknown>)[k] = live[k];
  return out;
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
  a: AbPatch;
  b: AbPatch;
  /** the live values of the touched fields, applied at the end (restoreFor) */
  restore: AbPatch;
  /** rounds per side, interleaved A, B, A, B... (default 1: no spread, so no verdict) */
  rounds?: number;
}

/** Mean of the per-second aggregates of one model over a run (seconds with no traffic are skipped). */
export function summarise(stats: StatsMessage[], model: string, version: string, answered?: number): AbRun {
  const aggs = stats.flatMap((s) => s.models.filter((a) => a.model === model && a.version === version && a.requests_per_s > 0));
  const mean = (f: (a: (typeof aggs)[number]) => number) => (aggs.length ? aggs.reduce((n, a) => n + f(a), 0) / aggs.length : 0);
  const first = stats.flatMap((s) => s.models.filter((a) => a.model === model && a.version === version))[0];
  const last = stats.flatMap((s) => s.models.filter((a) => a.model === model && a.version === version)).at(-1);
  return {
    throughput: mean((a) => a.throughput_per_s),
    p50Us: mean((a) => a.latency_us.p50),
    p99Us: mean((a) => a.latency_us.p99),
    avgBatch: mean((a) => a.avg_batch_size),
    rejected: (last?.totals.rejected ?? 0) - (first?.totals.rejected ?? 0),
    completed: (last?.totals.completed ?? 0) - (first?.totals.completed ?? 0),
    otherRequests: answered === undefined ? 0 : Math.max(0, (last?.totals.completed ?? 0) - (first?.totals.completed ?? 0) - answered),
    series: stats.flatMap((s) => s.models.filter((a) => a.model === model && a.version === version)
      .map((a) => ({ s: (s.t - (stats[0]?.t ?? s.t)) / 1e6, throughput: a.throughput_per_s, p99Us: a.latency_us.p99 }))),
  };
}

/** Warns when a side's model served clearly more than its own load (2% and 5 requests of slack). */
export function otherLoadWarning(side: { label: string; otherRequests?: number; completed: number }): string | undefined {
  return (side.otherRequests ?? 0) > Math.max(5, side.completed * 0.02) ? `${side.label}: ${side.otherRequests} requests from other clients reached the model during the run` : undefined;
}

async function applyPatch(deps: AbDeps, req: AbRequest, label: string, p: AbPatch): Promise<void> {
  const { instances, ...batching } = p;
  if (Object.keys(batching).length > 0) {
    const set = await deps.send({ action: 'setDynamicBatching', model: req.model, version: req.version, ...batching });
    if (!set.ok) throw new Error(`${label}: ${set.error}`);
  }
  if (instances !== undefined) {
    const set = await deps.send({ action: 'setInstanceCount', model: req.model, version: req.version, count: instances });
    if (!set.ok) throw new Error(`${label}: ${set.error}`);
  }
}

async function runSide(deps: AbDeps, req: AbRequest, label: string, patch: AbPatch): Promise<AbRun> {
  deps.onPhase?.(label);
  await applyPatch(deps, req, label, patch);
  const started = Date.now();
  const ack = await deps.send({ action: 'startLoad', model: req.model, version: req.version, scenario: req.scenario, rate: req.rate, duration: req.duration, seed: req.seed });
  if (!ack.ok) throw new Error(`${label}: ${ack.error}`);
  const id = String(ack.id ?? '');
  const deadline = started + (req.duration + 15) * 1000;
  let answered: number | undefined;
  for (;;) {
    await deps.sleep(250);
    const p = deps.progress(id);
    if (p && p.state !== 'running') {
      answered = p.answered;
      break;
    }
    if (Date.now() > deadline) throw new Error(`${label}: the load run did not finish in time`);
  }
  await deps.sleep(1100); // one more stats message so the tail of the run is counted
  return summarise(deps.statsSince(started), req.model, req.version, answered);
}

/** Interleaved rounds so a drift of the shared machine falls on both sides alike. */
export async function runAbCompare(deps: AbDeps, req: AbRequest): Promise<AbResult> {
  const rounds = Math.max(1, Math.floor(req.rounds ?? 1));
  const runs: [AbRun[], AbRun[]] = [[], []];
  try {
    for (let i = 0; i < rounds; i++) {
      const tag = rounds > 1 ? ` ${i + 1}/${rounds}` : '';
      runs[0].push(await runSide(deps, req, `A${tag}`, req.a));
      runs[1].push(await runSide(deps, req, `B${tag}`, req.b));
    }
    const sides = [sideOfRuns(S.abSide('A', describePatch(req.a)), runs[0]), sideOfRuns(S.abSide('B', describePatch(req.b)), runs[1])] as const;
    return { rounds, sides: [sides[0], sides[1]], verdicts: abVerdicts(sides[0], sides[1], rounds) };
  } finally {
    await applyPatch(deps, req, 'restore', req.restore).catch(() => undefined);
  }
}
