/**
 * The autotuning lesson's numbers: the uneven day (quiet 300/s, rush 9000/s, quiet 300/s) on the
 * bundled MLP with one instance, run through core's simulator (the real scheduler and the real autotuner,
 * autotune/policy.ts) once with a static `max_queue_delay_microseconds` and once autotuned to a p99 target,
 * on the same seeded arrivals, phase by phase (core's PhaseFigures). Pure (no DOM): the unit test and the
 * page run the same code; each run is cached by its knob value and the calibration in use.
 */
import { costFromCalibration, simulate, type CostModel, type PhaseFigures } from '@inferscope/core/sim';
import type { Scenario } from '@inferscope/core/load';
import { withinLimit } from '@inferscope/core/live-config';
import { calibrationFor } from './calibrations';
import { CALIBRATION_CORES } from './models';

/** Seconds per phase: shorter than a real day (the page runs it on a knob move), the rates as the issue's. */
export const PHASE_S = 8;
export const QUIET_PER_S = 300;
export const RUSH_PER_S = 9000;
export const DAY_SEED = 7;

export const UNEVEN_DAY: Scenario = {
  name: 'uneven-day', seed: DAY_SEED,
  phases: [
    { type: 'poisson', rate: QUIET_PER_S, duration_s: PHASE_S, label: 'quiet' },
    { type: 'poisson', rate: RUSH_PER_S, duration_s: PHASE_S, label: 'rush' },
    { type: 'poisson', rate: QUIET_PER_S, duration_s: PHASE_S, label: 'quiet again' },
  ],
};

/** The static delays a class can pick (µs): each one a value the live limits accept. */
export const STATIC_DELAYS_US = [0, 500, 2000, 8000].filter((d) => withinLimit('max_queue_delay_microseconds', d));
/** The p99 targets offered (ms): one the rush can hold with one instance (3), one it cannot (1.2). */
export const TARGETS_MS = [1.2, 3];

/**
 * mlp_classifier's shipped batching (model_repository/mlp_classifier/config.pbtxt, checked against that file
 * by the unit test); the autotuned run starts from it, the static runs replace its delay.
 */
export const MLP_BATCHING = { max_batch_size: 64, preferred_batch_size: [8, 16, 32], max_queue_delay_microseconds: 2000 };

function config(delayUs: number) {
  const { max_batch_size, ...db } = MLP_BATCHING;
  return {
    name: 'mlp_classifier', max_batch_size,
    dynamic_batching: { ...db, max_queue_delay_microseconds: delayUs },
    instance_group: [{ count: 1, kind: 'KIND_CPU' }],
  };
}

/**
 * The cost the day runs on: the page's calibration of the MLP (the live server's, else the shipped one)
 * with its measured spread and interruptions, since a p99 target is about exactly those tails.
 */
export function dayCost(): { cost: CostModel; source: 'live' | 'bundled' } {
  const c = calibrationFor('mlp_classifier');
  if (!c) throw new Error('no calibration for mlp_classifier');
  return { cost: costFromCalibration(c.cal), source: c.source };
}

export interface DayRun {
  phases: PhaseFigures[];
  /** requests over batches, the whole day */
  avgBatch: number;
  /** autotune decisions (0 for a static run) and instance changes among them */
  decisions: number;
  instanceChanges: number;
}

const cache = new Map<string, DayRun>();

/** One day: static at `delayUs` when `targetUs` is undefined, else autotuned from the shipped delay. */
export function runDay(opts: { delayUs?: number; targetUs?: number; cost?: CostModel; cores?: number }): DayRun {
  const cost = opts.cost ?? dayCost().cost;
  const key = JSON.stringify([opts.delayUs, opts.targetUs, opts.cores, cost]);
  const hit = cache.get(key);
  if (hit) return hit;
  const delay = opts.targetUs === undefined ? opts.delayUs ?? MLP_BATCHING.max_queue_delay_microseconds : MLP_BATCHING.max_queue_delay_microseconds;
  const r = simulate({
    scenario: UNEVEN_DAY, configs: config(delay), cost, cores: opts.cores ?? CALIBRATION_CORES, seed: DAY_SEED, record: false,
    autotune: opts.targetUs ?? false,
  });
  const run: DayRun = {
    phases: r.phases, avgBatch: r.summary.avg_batch_size,
    decisions: r.decisions.length, instanceChanges: r.decisions.filter((d) => d.instances_delta).length,
  };
  if (cache.size > 32) cache.clear();
  cache.set(key, run);
  return run;
}

/** The day's compute per request: every phase's instance time over every phase's requests. */
export function dayComputeUs(phases: PhaseFigures[]): number {
  const n = phases.reduce((s, p) => s + p.requests, 0);
  return n ? phases.reduce((s, p) => s + p.compute_per_request_us * p.requests, 0) / n : 0;
}

export const meetsTarget = (phases: PhaseFigures[], targetUs: number) => phases.every((p) => p.p99_us <= targetUs);

export interface DayComparison {
  targetUs: number;
  delayUs: number;
  fixed: DayRun;
  tuned: DayRun;
  /** which phases each run keeps within the target */
  fixedWithin: boolean[];
  tunedWithin: boolean[];
  fixedComputeUs: number;
  tunedComputeUs: number;
}

/** The picture's numbers: the same day with the static delay and autotuned to the target. */
export function compareDay(delayUs: number, targetMs: number, cost?: CostModel): DayComparison {
  const targetUs = Math.round(targetMs * 1000);
  const fixed = runDay({ delayUs, cost });
  const tuned = runDay({ targetUs, cost });
  return {
    targetUs, delayUs, fixed, tuned,
    fixedWithin: fixed.phases.map((p) => p.p99_us <= targetUs),
    tunedWithin: tuned.phases.map((p) => p.p99_us <= targetUs),
    fixedComputeUs: dayComputeUs(fixed.phases),
    tunedComputeUs: dayComputeUs(tuned.phases),
  };
}
