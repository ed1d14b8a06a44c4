/**
 * The seams of the ModelManager: what it needs from the config engine, the backends and the scheduler.
 * Each is a narrow interface so the manager is testable with fakes and does not depend on the internals
 * of those modules; ./default-runtime.ts wires the real ones.
 */
import type { AutotuneChangeReason, EventBus, Executor, InferPayload, InferResult, SchedulerRequest, InstanceSnapshot } from '@inferscope/core';
import type { PayloadsView } from '@inferscope/core/scheduler';
import type { PatchResult } from '@inferscope/core/scheduler';
import type { ModelConfig } from '@inferscope/core/config';
import type { LoadedModel, ModelLoadContext } from '../backends/types';

/** A config problem; line/column when it comes from the text. */
export interface ConfigProblem {
  message: string;
  line?: number;
  column?: number;
  /** dotted path of the field (lets the engine locate it in the text) */
  path?: string;
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

/** What the manager uses of core's ModelScheduler. */
export interface SchedulerLike {
  start(): Promise<void>;
  enqueue(req: SchedulerRequest<InferPayload>): Promise<InferResult>;
  /** the callback form: `settle` is called exactly once; returns the request's id (for cancel) */
  submit(req: SchedulerRequest<InferPayload>, settle: (err: Error | null, result?: InferResult) => void): string;
  /** takes a still-queued request out (answered 'cancelled'); false when it already runs or was answered */
  cancel(id: string): boolean;
  /** a live change computed by core's planBatchingChange: the scheduler does not merge the patch again */
  applyLiveChange(next: PatchResult, by: string, reason?: AutotuneChangeReason): unknown;
  setInstanceCount(group: string, count: number, by: string, reason?: AutotuneChangeReason): unknown;
  stop(): Promise<void>;
  snapshot(): SchedulerView;
}

/** The parts of a scheduler snapshot the manager shows (instances and queue depth). */
export interface SchedulerView {
  instances?: InstanceSnapshot[];
  queue_depth?: Record<string, number>;
  payloads?: PayloadsView;
}

export interface SchedulerFactoryOptions {
  model: string;
  version: string;
  config: ModelConfig;
  bus: EventBus;
  executor: Executor<InferPayload, InferResult>;
}

export type SchedulerFactory = (opts: SchedulerFactoryOptions) => SchedulerLike;

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
