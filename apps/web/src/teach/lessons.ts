/**
 * The six guided lessons (following the course's chapters). Each sets up the view, the simulated scenario
 * and the settings, names its experiment (experiments.ts: the claim shown with numbers), the knob placed
 * next to the picture, and the formula cards that go with it. The text (title, claim, intro, what to
 * watch, caption) is in the language tables: S.lessonText[id].
 */
import type { ViewName } from '../store/url-state';
import type { GenTraffic, SimScenario } from './sim-types';
import type { ExperimentId } from './experiments';
import type { LessonId } from '../i18n/lessons-en';
import { cnn, courseModel, mlp, mlpTorch, MiB, tokenStreamer } from './models';
import { fullBatchesPerS, moderateRate, roundRate } from './rates';
import { COURSE_DEFAULTS } from '@inferscope/core/sim';
import { S } from '../i18n/strings';
import { QUIET_PER_S } from './autotune-day';
import { rebuildArrivals } from './rebuild-run';
import { kvArrivals, kvOpeningUs } from './kv-limit-run';
import { chunkArrivals } from './chunk-run';

export type FormulaId = 'repoSize' | 'maxBatchBound' | 'capacity' | 'speedup' | 'memoryTotal' | 'little';
/** the control placed next to the picture: the one the lesson asks you to move */
export type LessonKnob = 'delay' | 'instances' | 'course' | 'stream' | 'autotune' | 'seats' | 'accelerator' | GenKnob;
/** the generative lessons' demos (core's iterative scheduler in the simulator: rebuild-run.ts, kv-limit-run.ts, chunk-run.ts) */
export type GenKnob = 'rebuild' | 'kvlimit' | 'chunked';

export interface Lesson {
  id: LessonId;
  chapter: number;
  view: ViewName;
  /** simulated µs per wall-clock ms (1000 = real time) */
  speed: number;
  scenario: (seed: number) => SimScenario;
  /** open this model's config drawer */
  inspect?: string;
  experiment?: ExperimentId;
  knob?: LessonKnob;
  /** the p99 budget the lesson's text names (µs): drawn as a line on the latency chart */
  latencyBudgetUs?: number;
  /** the simulated time the lesson opens at where its picture has a moment to open on (playback.ts) */
  openAtUs?: () => number;
  formulas: FormulaId[];
}

const SECOND = 1_000_000;

/** each generative lesson's own seeded workload, one round of the playback's tiny_lm_generate traffic */
const GEN_ROUNDS: Record<GenKnob, GenTraffic['round']> = { rebuild: (seed) => rebuildArrivals(seed), kvlimit: (seed) => kvArrivals(seed), chunked: (seed) => chunkArrivals(seed) };
/** rounds start for this long (simulated: ten seconds is over a minute and a half of watching at the lessons' speed) */
const GEN_TRAFFIC_US = 10 * SECOND;

/** Playback speeds offered (simulated µs per wall ms); every lesson starts at one of them. */
export const SPEEDS: [number, string][] = [[1, '1/1000×'], [10, '1/100×'], [100, '1/10×'], [1000, '1×']];

export const LESSONS: Lesson[] = [
  {
    id: 'repository', chapter: 1, view: 'architecture', speed: 100,
    scenario: (seed) => ({ models: [mlp(), cnn()], traffic: { rate: 40, durationUs: 60 * SECOND }, budgetBytes: 1024 * MiB, seed }),
    formulas: ['repoSize'],
  },
  {
    id: 'config', chapter: 2, view: 'architecture', speed: 100, inspect: 'mlp_classifier:1',
    scenario: (seed) => ({ models: [mlp()], traffic: { rate: 40, durationUs: 60 * SECOND }, budgetBytes: 0, seed }),
    formulas: ['maxBatchBound'],
  },
  {
    // a moderate load, delay 0: moving the delay knob to 2000 µs visibly grows the batches
    id: 'batching', chapter: 3, view: 'data', speed: 10, experiment: 'batching', knob: 'delay',
    scenario: (seed) => {
      const m = mlp({}, { max_queue_delay_microseconds: 0 });
      return { models: [m], traffic: { rate: moderateRate(m.cost), durationUs: 30 * SECOND }, budgetBytes: 0, seed };
    },
    formulas: ['capacity', 'little'],
  },
  {
    id: 'backends', chapter: 4, view: 'performance', speed: 100, experiment: 'backends',
    scenario: (seed) => ({ models: [mlp({}, { max_queue_delay_microseconds: 200 }), mlpTorch()], traffic: { rate: 3000, durationUs: 60 * SECOND }, budgetBytes: 0, seed }),
    formulas: ['speedup', 'capacity'],
  },
  {
    // 1.3x what one CNN instance serves in full batches: the queue grows until a second instance is added
    id: 'concurrency', chapter: 5, view: 'state', speed: 100, experiment: 'concurrency', knob: 'instances',
    scenario: (seed) => {
      const m = cnn({}, 1);
      return { models: [m], traffic: { rate: roundRate(1.3 * fullBatchesPerS(m)), durationUs: 60 * SECOND }, budgetBytes: 640 * MiB, seed };
    },
    formulas: ['memoryTotal', 'capacity'],
  },
  {
    id: 'operations', chapter: 6, view: 'performance', speed: 1000, experiment: 'operations',
    scenario: (seed) => ({ models: [mlp({}, { max_queue_delay_microseconds: 1000 })], traffic: { rate: 5000, durationUs: 120 * SECOND }, budgetBytes: 0, seed }),
    formulas: ['little', 'capacity'],
  },
  {
    // the course's traffic (a request every 50..150 ms) through the real scheduler, beside the two lanes
    id: 'course', chapter: 7, view: 'data', speed: 1000, knob: 'course',
    scenario: (seed) => ({ models: [courseModel(COURSE_DEFAULTS.delayUs, COURSE_DEFAULTS.maxBatch)], traffic: { rate: 10, durationUs: 60 * SECOND }, budgetBytes: 0, seed }),
    formulas: ['little'],
  },
  // application scenarios: presets that stand for real uses
  {
    id: 'online', chapter: 8, view: 'performance', speed: 1000, latencyBudgetUs: 10_000,
    scenario: (seed) => ({ models: [cnn({ config: { ...cnn().config, max_batch_size: 16, dynamic_batching: { preferred_batch_size: [4, 8], max_queue_delay_microseconds: 500 }, instance_group: [{ name: 'cnn_classifier_0', kind: 'KIND_CPU', count: 2 }] } })], traffic: { rate: 3000, durationUs: 120 * SECOND }, budgetBytes: 0, seed }),
    formulas: ['capacity', 'little'],
  },
  {
    id: 'offline', chapter: 9, view: 'performance', speed: 1000,
    scenario: (seed) => ({ models: [mlp({ config: { ...mlp().config, max_batch_size: 64, dynamic_batching: { preferred_batch_size: [64], max_queue_delay_microseconds: 5000 }, instance_group: [{ name: 'mlp_classifier_0', kind: 'KIND_CPU', count: 2 }] } })], traffic: { rate: 40000, durationUs: 60 * SECOND }, budgetBytes: 0, seed }),
    formulas: ['capacity'],
  },
  {
    id: 'mixed', chapter: 10, view: 'state', speed: 100,
    // 1.25x what the instance serves in full batches of 8 (from its cost): a queue forms, and the priorities
    // decide its order
    scenario: (seed) => {
      const m = mlp({ config: { ...mlp().config, max_batch_size: 8, dynamic_batching: { max_queue_delay_microseconds: 1000, priority_levels: 2, default_priority_level: 2 } } });
      return { models: [m], traffic: { rate: roundRate(1.25 * fullBatchesPerS(m)), priorities: { 1: 0.2, 2: 0.8 }, durationUs: 20 * SECOND }, budgetBytes: 0, seed };
    },
    formulas: ['little'],
  },
  {
    // the live token_streamer (StreamingDemo.tsx) above the simulated picture of the same model: its one
    // instance's timeline (state view), busy only while execute() hands a request to its thread
    id: 'streaming', chapter: 11, view: 'state', speed: 1000, knob: 'stream',
    scenario: (seed) => ({ models: [tokenStreamer()], traffic: { rate: 4, durationUs: 60 * SECOND }, budgetBytes: 0, seed }),
    formulas: ['little'],
  },
  {
    // the uneven day, static delay vs autotuned (AutotuneDemo.tsx, autotune-day.ts); the playback behind
    // it is the day's quiet rate with the shipped delay
    id: 'autotune', chapter: 12, view: 'performance', speed: 1000, knob: 'autotune',
    scenario: (seed) => ({ models: [mlp({}, { max_queue_delay_microseconds: 2000 })], traffic: { rate: QUIET_PER_S, durationUs: 60 * SECOND }, budgetBytes: 0, seed }),
    formulas: ['little'],
  },
  {
    // a stateful model's slots over time (SeatsDemo.tsx, seats-run.ts: the sequence batcher in core's
    // simulator); the playback behind it is plain light traffic
    id: 'seats', chapter: 13, view: 'state', speed: 100, knob: 'seats',
    scenario: (seed) => ({ models: [mlp({}, { max_queue_delay_microseconds: 500 })], traffic: { rate: 200, durationUs: 60 * SECOND }, budgetBytes: 0, seed }),
    formulas: ['little'],
  },
  {
    // two heavy models sharing one accelerator, with and without the rate limiter, and the response cache
    // (AcceleratorDemo.tsx, accelerator-run.ts, cache-run.ts: core's simulator with the server's rate limiter
    // and cache); the playback behind it is plain light traffic to two models
    id: 'accelerator', chapter: 14, view: 'state', speed: 100, knob: 'accelerator',
    scenario: (seed) => ({ models: [mlp({}, { max_queue_delay_microseconds: 500 }), cnn()], traffic: { rate: 200, durationUs: 60 * SECOND }, budgetBytes: 0, seed }),
    formulas: ['little'],
  },
  // generative models: core's iterative scheduler in the simulator (RebuildDemo, KvLimitDemo, ChunkDemo);
  // the playback behind each serves tiny_lm_generate under the lesson's own workload, round after round
  // (gen-serve.ts: its timeline, block map and Live Controls as on the live server), beside light traffic
  ...(['rebuild', 'kvlimit', 'chunked'] as const).map((id, i): Lesson => ({
    id, chapter: 15 + i, view: 'state', speed: 100, knob: id,
    scenario: (seed) => ({
      models: [mlp({}, { max_queue_delay_microseconds: 500 })], traffic: { rate: 200, durationUs: 60 * SECOND }, budgetBytes: 0, seed,
      generative: { round: GEN_ROUNDS[id], durationUs: GEN_TRAFFIC_US },
    }),
    formulas: ['little'],
    // lesson 16's block map opens on its first preemption (kv-limit-run.ts), the others on their runs played
    openAtUs: id === 'kvlimit' ? kvOpeningUs : undefined,
  })),
];

export function lessonById(id: string): Lesson | undefined {
  return LESSONS.find((l) => l.id === id);
}

export function lessonText(l: Lesson) {
  return S.lessonText[l.id];
}
