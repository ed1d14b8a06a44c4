/**
 * A/B compare on the live server, built from ordinary control messages so it works with any gateway:
 * in interleaved rounds (A, B, A, B, ...) apply patch A (any of delay, preferred sizes, max batch,
 * instances), run the scenario with a fixed seed (identical arrivals), collect the aggregates that
 * arrived during the run; apply B, run the same traffic, collect; at the end restore the original values
 * of every field either side touched. The rounds' spread and the verdict come from core's ab-verdict (the
 * CLI's `ab --rounds` judges by the same rule). A run whose model served more requests than its own load
 * answered had other traffic on it, and says so.
 */
import type { ControlAckOf, ControlMessage, LoadProgress, StatsMessage } from '@inferscope/core';
import { describeKnobPatch, splitKnobPatch, type KnobPatch } from '@inferscope/core/live-config';
import { S } from '../i18n/strings';
import { sideOfRuns, abVerdicts, type AbResult, type AbRun } from './ab-rounds';


/** What one side changes, in core's one patch grammar (live-config/knobs.ts); absent fields keep their live value. */
export type AbPatch = KnobPatch;

/**
 * The live values of the fields the patches touch (what the comparison restores afterwards). A field
 * without a live value (left to its default in the config) cannot be put back by a patch: refused before
 * any traffic rather than left changed.
 */
export function restoreFor(patches: AbPatch[], live: (field: string) => unknown): AbPatch {
  const out: Record<string, unknown> = {};
  for (const p of patches) {
    for (const field of Object.keys(p)) {
      const value = live(field);
      if (value === undefined) throw new Error(`'${field}' is not set in the model's config, so the comparison could not put it back; set it first, or use \`inferscope ab\``);
      out[field] = value;
    }
  }
  return out as AbPatch;
}

export interface AbDeps {
  send<M extends ControlMessage>(msg: M): Promise<ControlAckOf<M['action']>>;
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
  const { batching, instances } = splitKnobPatch(p);
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
  const id = ack.id;
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
    const sides = [sideOfRuns(S.abSide('A', describeKnobPatch(req.a)), runs[0]), sideOfRuns(S.abSide('B', describeKnobPatch(req.b)), runs[1])] as const;
    return { rounds, sides: [sides[0], sides[1]], verdicts: abVerdicts(sides[0], sides[1], rounds) };
  } finally {
    await applyPatch(deps, req, 'restore', req.restore).catch(() => undefined);
  }
}
