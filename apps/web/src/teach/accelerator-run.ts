/**
 * The "two models, one accelerator" lesson's first part: core's simulator with two heavy models whose
 * instances each need the one `accel` resource, on a host of one core (core's CpuHost: two batches at once
 * each run at half speed, as two kernels sharing one device). Run with the server's rate limiter off (both
 * run at once and each slows) and on (`execution_count`: they take turns, the lower priority weight more
 * often). From the run's batch events it reads each instance's busy / waiting-for-the-resource spans and
 * the figures the verdict is computed from.
 */
import { percentile, simulate } from '@inferscope/core/sim';
import type { SchedulerEvent } from '@inferscope/core';
import { roundRate, servedPerS } from './rates';
import { cachedRuns } from './run-cache';

export type LimitMode = 'off' | 'execution_count';
export const MODES: LimitMode[] = ['off', 'execution_count'];
/** the knob: speech_net's rate_limiter.priority (vision_net's stays 1); Triton's weight, lower goes first */
export const PRIORITIES = [1, 2, 4];
export const MODELS = ['vision_net', 'speech_net'] as const;

const SEED = 1;
const MAX_BATCH = 8;
/** modelled cost of each heavy model (no calibration has two models on one accelerator): per batch + per item */
export const HEAVY_COST = { fixed_us: 2000, per_item_us: 250, kind: 'KIND_CPU' };
/** how long the two models are offered traffic; turns are counted while both compete for the accel */
export const TRAFFIC_US = 200_000;
/** the window the picture draws (the whole run would be too dense to read) */
export const PICTURE_US = 40_000;
/**
 * Each model offered 0.75x what it serves alone in full batches (from its cost, rates.ts): either alone
 * would fit, together they ask 1.5x what the one accelerator serves, so every turn is contested.
 */
export const OFFERED_PER_MODEL = roundRate(0.75 * servedPerS(HEAVY_COST, MAX_BATCH));

export interface Span { state: 'busy' | 'waiting'; from: number; to: number; size: number }
export interface ModelFigures {
  model: string;
  /** the instance's spans in the run (busy computing a batch, waiting for the accel with one formed) */
  spans: Span[];
  /** batches begun while the traffic lasted: the turns it got */
  executions: number;
  /** mean µs a batch took, over those */
  meanBatchUs: number;
  /** µs its instance waited for the accel with a batch formed, while the traffic lasted */
  waitUs: number;
  p99Us: number;
  answered: number;
  sent: number;
}
export interface AcceleratorRun { mode: LimitMode; priority: number; models: ModelFigures[] }

export function acceleratorConfig(model: string, priority: number) {
  return {
    name: model, max_batch_size: MAX_BATCH, dynamic_batching: {},
    instance_group: [{ count: 1, kind: 'KIND_CPU', rate_limiter: { resources: [{ name: 'accel', count: 1 }], priority } }],
  };
}

/** the rows the page shows: off once (Triton ignores rate_limiter then), on at every priority */
export function acceleratorRows(): AcceleratorRun[] {
  return [runAccelerator('off', 1), ...PRIORITIES.map((p) => runAccelerator('execution_count', p))];
}

/** a run, cached per setting (off ignores the priority, as the server does) */
export const runAccelerator = cachedRuns(
  (mode: LimitMode, priority: number) => (mode === 'off' ? 'off' : `on/${priority}`),
  (mode: LimitMode, priority: number) => simulateAccelerator(mode, mode === 'off' ? 1 : priority),
);

/** a fresh run (no cache) */
export function simulateAccelerator(mode: LimitMode, priority: number): AcceleratorRun {
  const { events } = simulate({
    scenario: {
      name: 'two models, one accelerator', seed: SEED,
      phases: [{ type: 'poisson', rate: 2 * OFFERED_PER_MODEL, duration_s: TRAFFIC_US / 1e6 }],
      models: MODELS.map((m) => ({ value: m, weight: 1 })),
    },
    configs: [acceleratorConfig('vision_net', 1), acceleratorConfig('speech_net', priority)],
    cost: HEAVY_COST, cores: 1, seed: SEED,
    // no batch handed early to a busy instance: with the limiter on the server hands none either (batch-runner.ts), so both modes form batches alike
    prefetch: 0,
    rateLimit: { mode },
  });
  return { mode, priority, models: MODELS.map((m) => readModel(m, events)) };
}

function readModel(model: string, events: SchedulerEvent[]): ModelFigures {
  const mine = events.filter((e) => 'model' in e && e.model === model);
  const formed = new Map<string, number>();
  const started = new Map<string, number>();
  const spans: Span[] = [];
  const latencies: number[] = [];
  let sent = 0;
  for (const e of mine) {
    if (e.type === 'request.queued') sent++;
    else if (e.type === 'batch.formed') formed.set(e.batch_id, e.t);
    else if (e.type === 'batch.started') {
      started.set(e.batch_id, e.t);
      const f = formed.get(e.batch_id) ?? e.t;
      if (e.t > f) spans.push({ state: 'waiting', from: f, to: e.t, size: e.size });
    } else if (e.type === 'batch.completed') spans.push({ state: 'busy', from: started.get(e.batch_id) ?? e.t - e.compute_us, to: e.t, size: e.size });
    else if (e.type === 'request.completed') latencies.push(e.total_us);
  }
  const turns = spans.filter((s) => s.state === 'busy' && s.from < TRAFFIC_US);
  const waits = spans.filter((s) => s.state === 'waiting' && s.from < TRAFFIC_US);
  return {
    model, spans: spans.sort((a, b) => a.from - b.from),
    executions: turns.length,
    meanBatchUs: turns.length ? Math.round(turns.reduce((n, s) => n + s.to - s.from, 0) / turns.length) : 0,
    waitUs: waits.reduce((n, s) => n + Math.min(s.to, TRAFFIC_US) - s.from, 0),
    p99Us: percentile(Float64Array.from(latencies).sort(), 0.99),
    answered: latencies.length, sent,
  };
}

/** the figures the verdict and its claim read, from the rows */
export function acceleratorFigures(rows: AcceleratorRun[], mode: LimitMode, priority: number) {
  const off = rows.find((r) => r.mode === 'off')!;
  const on = rows.filter((r) => r.mode === 'execution_count').sort((a, b) => a.priority - b.priority);
  const even = on[0]!;
  const widest = on[on.length - 1]!;
  const now = mode === 'off' ? off : on.find((r) => r.priority === priority)!;
  const [d, r] = [0, 1];
  return {
    now, off, even, widest,
    figures: {
      // without the limiter each model's batches take this many times as long as with it (priorities equal)
      slowVision: off.models[d]!.meanBatchUs / even.models[d]!.meanBatchUs,
      slowSpeech: off.models[r]!.meanBatchUs / even.models[r]!.meanBatchUs,
      // turns with the limiter: equal priorities, and the widest weight the knob offers
      turnsEvenVision: even.models[d]!.executions, turnsEvenSpeech: even.models[r]!.executions,
      turnsVision: widest.models[d]!.executions, turnsSpeech: widest.models[r]!.executions,
      // with the limiter on no two batches ran at once
      overlapOn: Math.max(...on.map(overlapUs)),
    },
  };
}

/** µs during which both models' instances computed at once */
export function overlapUs(run: AcceleratorRun): number {
  const [a, b] = run.models.map((m) => m.spans.filter((s) => s.state === 'busy'));
  let n = 0;
  for (const x of a!) for (const y of b!) n += Math.max(0, Math.min(x.to, y.to) - Math.max(x.from, y.from));
  return n;
}
