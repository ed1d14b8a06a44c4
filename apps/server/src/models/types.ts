/** What the ModelManager tells others about its models. */
import type { ModelState, ModelSnapshot } from '@inferscope/core';
import type { ModelConfig } from '@inferscope/core/config';
import type { LoadedModelLike } from './runtime';
import type { Scheduler } from '@inferscope/core/scheduler';
import type { ScannedModel } from '../repository/scan';
import type { ResolvedModel } from './config-loader';

/** One model version as listed: the live gateway's ModelSnapshot (same fields). */
export type ServedModelInfo = ModelSnapshot;

/** One model version as looked up by the request path. */
export interface ServedModel {
  name: string;
  /** version as in URLs and events ('1', '2' ...) */
  version: string;
  state: ModelState;
  reason?: string;
  /** live (normalised, auto-completed, live-edited) config */
  config: ModelConfig;
  repository: string;
  /** every version of this model that is READY, ascending (metadata's "versions") */
  readyVersions: string[];
}

/** One row of POST /v2/repository/index (Triton's fields). */
export interface RepositoryIndexRow {
  name: string;
  version?: string;
  state?: ModelState;
  reason?: string;
}

export type ControlMode = 'none' | 'poll' | 'explicit';

/** Internal: one version of one model. */
export interface VersionSlot {
  version: number;
  state: ModelState;
  reason?: string;
  config?: ModelConfig;
  loaded?: LoadedModelLike;
  scheduler?: Scheduler;
  files: { path: string; bytes: number }[];
  /** dotted paths changed live since load or the last save (saveConfig writes these into the file) */
  changedPaths: Set<string>;
}

/** Everything the manager keeps about one model: its folder, its resolved config and its versions. */
export interface ModelEntry {
  name: string;
  scanned: ScannedModel;
  resolved: ResolvedModel;
  /** max_batch_size as loaded: live edits may not go above it */
  maxBatchLimit: number;
  versions: Map<number, VersionSlot>;
}
