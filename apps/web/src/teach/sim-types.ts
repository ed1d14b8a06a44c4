/** What a teaching scenario describes: models with a cost model and memory model, traffic, a budget. */
import type { SchedulerConfigInput } from '@inferscope/core/scheduler';
import type { CostModel } from '@inferscope/core/sim';
import type { GenArrival } from '@inferscope/core/iterative';

export interface SimModel {
  name: string;
  backend: string;
  platform: string;
  config: SchedulerConfigInput & Record<string, unknown>;
  /** core's cost model: a calibrated table (measured) or fixed + per item (modelled) */
  cost: CostModel;
  /** true when the cost was measured on this project's machine (`inferscope calibrate`), false when modelled */
  measured: boolean;
  /** memory model: weights once, plus per instance workspace + activations × max batch */
  memory: { weights: number; workspace: number; activationsPerItem: number };
  files: { path: string; bytes: number }[];
  device?: string;
}

export interface SimTraffic {
  /** total requests per second (Poisson arrivals), split evenly across the models */
  rate: number;
  /** share of traffic per priority level, e.g. {1: 0.2, 2: 0.8} */
  priorities?: Record<number, number>;
  /** arrivals stop after this many µs */
  durationUs: number;
}

export interface SimScenario {
  models: SimModel[];
  traffic: SimTraffic;
  /** device memory budget in bytes (0 = none) */
  budgetBytes: number;
  seed: number;
  /** tiny_lm_generate served too (the generative lessons), under this traffic */
  generative?: GenTraffic;
  /** CPU cores of the simulated host (CPU instances beyond them share them); default: the calibration host's */
  cores?: number;
}

/** The generative traffic of a lesson: one round of its seeded arrivals (its own generator), repeated until durationUs. */
export interface GenTraffic {
  round: (seed: number) => GenArrival[];
  durationUs: number;
}

/** The one version every model of the simulated server serves. */
export const SIM_VERSION = '1';
