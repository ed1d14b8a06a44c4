/**
 * The narrow view of the server the live gateway needs. The real ModelManager, MemoryLedger and load
 * controller satisfy these; tests use small fakes.
 */
import type {
  AutotuneReport,
  ConfigChange,
  DeviceMemory,
  DynamicBatchingPatch,
  EventBus,
  LoadProgress,
  ModelAggregate,
  ModelSnapshot,
  RecordingStopped,
  ServerInfo,
  SharedConfigFile,
  StartLoadRequest,
  StartReplayRequest,
} from '@inferscope/core';
import type { ControlGuard } from './guard';

/** Re-exported for the load modules, which import it from here. */
export type { StartLoadRequest };

/** Everything a snapshot is built from, read on demand (connect and resync). */
export interface LiveSource {
  serverInfo(): Omit<ServerInfo, 'token_required' | 'can_control'>;
  repositories(): string[];
  models(): ModelSnapshot[];
  memory(): DeviceMemory[];
  /** the scheduler clock now, microseconds (the time base of every event) */
  now(): number;
}

/** The ModelManager methods control messages call. Each rejects with a message a person can act on. */
export interface ControlTarget {
  load(name: string): Promise<void>;
  unload(name: string): Promise<void>;
  updateDynamicBatching(name: string, version: string | undefined, patch: DynamicBatchingPatch, by: string): Promise<ConfigChange[]>;
  setInstanceCount(name: string, version: string | undefined, group: string | undefined, count: number, by: string): Promise<ConfigChange[]>;
  /** models/config-writeback/save-config.ts's SaveResult: what was (or would be) written, and where the .bak is */
  saveConfig(name: string, opts: { dryRun: boolean; version?: string }): Promise<{
    path: string; text: string; diff: string; backup?: string | null; versions?: SharedConfigFile;
    written?: boolean; backupKept?: boolean; changed?: string[]; notes?: string[];
  }>;
  /** an iterative model's step knobs (max_num_sequences, max_num_tokens, ...), applied at its next step boundary */
  setIterativeKnobs?(name: string, version: string | undefined, patch: import('@inferscope/core/live-config').IterativeKnobPatch, by: string): Promise<ConfigChange[]>;
  /** switches a version's response cache on or off (refused where the server has none or the model cannot cache) */
  setResponseCache?(name: string, version: string | undefined, enabled: boolean, by: string): Promise<ConfigChange[]>;
  /** switches a version's autotuner on (with a p99 target in ms) or off; its status after */
  setAutotune?(name: string, version: string | undefined, enabled: boolean, targetMs?: number): Promise<AutotuneReport>;
}

/** The load generator as the control channel drives it (apps/server/src/load). */
export interface LoadControl {
  start(req: StartLoadRequest, by: string): Promise<{ id: string; recording?: string }>;
  stop(id?: string): string[];
  startReplay(req: StartReplayRequest, by: string): Promise<{ id: string }>;
  /** records live traffic (any source) until stopRecording; shows in progress() as scenario 'recording' */
  startRecording?(models: string[] | undefined, by: string): { id: string; recording: string };
  stopRecording?(id?: string): Promise<RecordingStopped[]>;
  progress(): LoadProgress[];
}

/** The server-side config sweep (apps/server/src/clients/analyze/server-sweep.ts). */
export interface SweepControl {
  start(req: import('@inferscope/core').StartSweepRequest, by: string): { id: string; total: number };
  stop(): boolean;
  progress(): import('@inferscope/core').SweepProgress | undefined;
}

/** Per-model aggregates over the last window; core's stats module behind it. */
export interface AggregateSource {
  add(event: import('@inferscope/core').SchedulerEvent): void;
  models(nowUs: number): ModelAggregate[];
}

export interface LiveGatewayDeps {
  source: LiveSource;
  control: ControlTarget;
  bus: EventBus;
  /** default: core's AggregatorSet over a 1 s window, fed from the bus */
  stats?: AggregateSource;
  load?: LoadControl;
  /** the server's event-loop delay, published with the stats (metrics/event-loop.ts) */
  eventLoop?: { figures(): import('@inferscope/core').EventLoopFigures | undefined };
  sweep?: SweepControl;
  /** host CPU utilisation 0..1, read once per stats message */
  cpu?: () => number;
  /** the server's rate limiter, for live resource counts and priorities */
  limiter?: import('@inferscope/core/rate-limiter').RateLimiter;
  /** the shared response cache's fill, when the server has one (rides every stats message) */
  responseCache?: () => import('@inferscope/core').ResponseCacheFigures;
  /** the rate limiter's resources, holders and waiters, when it limits */
  rateLimiter?: () => import('@inferscope/core').RateLimiterSnapshot | undefined;
  /** bounds of the history sent in snapshots */
  history?: Partial<import('../live/stats-history').StatsHistoryOptions>;
  /** who may control: the server's one guard (socket auth `token` or the message's `token`) */
  guard: ControlGuard;
  frameIntervalMs?: number;
  statsIntervalMs?: number;
  /** how often an iterative model's `generation` message goes out (default 250 ms) */
  generationIntervalMs?: number;
  /** the generation feeds' bounds (core live/generation.ts) */
  generation?: Partial<import('@inferscope/core/live').GenerationFeedOptions>;
  coalescer?: Partial<import('../live/frame-coalescer').CoalescerOptions>;
  /** resync rate and backlog bound per client (flow-control.ts) */
  flow?: Omit<import('../live/flow-control').FlowControlOptions, 'log'>;
  /** errors in the gateway itself (never includes the token) */
  log?: (msg: string) => void;
}
