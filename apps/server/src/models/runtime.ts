/**
 * The seams of the ModelManager: what it needs from the config engine, the backends and the scheduler.
 * Each is a narrow interface so the manager is testable with fakes and does not depend on the internals
 * of those modules; ./default-runtime.ts wires the real ones.
 */
import type { EventBus, Executor, InferPayload, InferResult } from '@inferscope/core';
import type { Scheduler } from '@inferscope/core/scheduler';
import type { ConfigProblem as CoreConfigProblem, ModelConfig } from '@inferscope/core/config';
import type { LoadedModel, ModelLoadContext } from '../backends/types';
import type { GenerativeModel } from '../generate/generative-model';

/** Core's config problem (message, dotted path), with line/column once located in the text. */
export interface ConfigProblem extends CoreConfigProblem {
  line?: number;
  column?: number;
}

export interface ConfigEngine {
  /** throws an Error carrying line/column (ConfigError) for bad text */
  parse(text: string): ModelConfig;
  normalize(config: ModelConfig, opts: { modelName: string; gpuCount: number }): ModelConfig;
  /** [] when valid */
  validate(config: ModelConfig, opts: { folderName?: string; gpuCount: number }): ConfigProblem[];
  print(config: ModelConfig): string;
  /** adds line/column in the written config to a problem found after normalisation */
  locate?(problem: ConfigProblem, raw: ModelConfig): ConfigProblem;
}

/** A loaded model version as a backend returns it (backends/types.ts states the contract once). */
export type LoadedModelLike = LoadedModel;

/** What the manager tells a backend to load; the memory ledger is wired in by default-runtime.ts. */
export type BackendLoadContext = Omit<ModelLoadContext, 'memory'>;

export interface BackendProvider {
  /** fills inputs/outputs/max_batch_size from the model file (strict_model_config=false); throws when they contradict */
  autoComplete(modelFile: string, config: ModelConfig): Promise<ModelConfig>;
  /** throws a clear error for an unknown/unavailable backend or a model that cannot load */
  load(ctx: BackendLoadContext): Promise<LoadedModelLike>;
}

/** Every scheduler is core's seam (packages/core/src/scheduler/seam.ts); the runtime makes the dynamic batcher. */
export interface SchedulerFactoryOptions {
  model: string;
  version: string;
  config: ModelConfig;
  bus: EventBus;
  executor: Executor<InferPayload, InferResult>;
  /** an iterative model's two signatures, checked by the loader (generate/generative-model.ts) */
  generative?: GenerativeModel;
}

export type SchedulerFactory = (opts: SchedulerFactoryOptions) => Scheduler;

/** Memory budget pre-check for adding instances (apps/server/src/memory MemoryLedger behind it). */
export interface MemoryCheck {
  /** throws a clear error when `extraInstances` more instances of this model version would exceed the budget */
  checkAddInstances(model: string, version: string, extraInstances: number): void;
}

export interface ModelRuntime {
  config: ConfigEngine;
  backends: BackendProvider;
  createScheduler: SchedulerFactory;
  memory?: MemoryCheck;
}
