/**
 * The wire protocol of the live gateway (Socket.IO, same port as HTTP). Shared by the server gateway,
 * the dashboard and the tests so both ends agree at compile time.
 *
 * Server -> client: `snapshot` once on connect (and on request via `resync`), then `frame` every
 * 33-50 ms with coalesced SchedulerEvents, and `stats` about once a second (never sampled).
 * Client -> server: `control` with a ControlMessage and an acknowledgement callback receiving ControlAck;
 * `resync` (no payload) asks for a fresh snapshot.
 */
import type { SchedulerEvent, ModelState, InstanceState, MemoryEntry } from '../events';

export const WIRE = {
  snapshot: 'snapshot',
  frame: 'frame',
  stats: 'stats',
  control: 'control',
  resync: 'resync',
} as const;

export interface InstanceSnapshot {
  name: string;
  group: string;
  kind: string;
  device: string;
  state: InstanceState;
  /** batch currently running, if busy */
  batch_id?: string;
  reason?: string;
}

export interface ModelSnapshot {
  name: string;
  version: string;
  /** every version known in the repository and its state */
  state: ModelState;
  reason?: string;
  repository: string;
  backend: string;
  platform: string;
  /** normalised ModelConfig as JSON (Triton's field names) */
  config: Record<string, unknown>;
  instances: InstanceSnapshot[];
  /** files in the version folder with sizes in bytes (for the architecture view and repo-size card) */
  files?: { path: string; bytes: number }[];
  /** queue depth per priority level right now */
  queue_depth?: Record<string, number>;
}

export interface DeviceMemory {
  device: string;
  used_bytes: number;
  budget_bytes: number;
  entries: MemoryEntry[];
}

export interface ServerInfo {
  name: string;
  version: string;
  extensions: string[];
  model_control_mode: 'none' | 'poll' | 'explicit';
  /** true when a control token is configured */
  token_required: boolean;
  /** whether THIS client may send control messages (false = viewer) */
  can_control: boolean;
  cpu_count: number;
  gpu_count: number;
}

/** Per model-version aggregates over the last window (about 1 s, plus running totals). */
export interface ModelAggregate {
  model: string;
  version: string;
  window_s: number;
  throughput_per_s: number;
  requests_per_s: number;
  latency_us: { p50: number; p90: number; p99: number; mean: number };
  queue_us_mean: number;
  compute_us_mean: number;
  avg_batch_size: number;
  batch_size_histogram: Record<string, number>;
  queue_depth: Record<string, number>;
  in_flight: number;
  totals: { completed: number; rejected: number; failed: number; batches: number };
  memory_bytes: number;
}

export interface StatsMessage {
  t: number;
  wall_ms: number;
  models: ModelAggregate[];
  load?: LoadProgress[];
  /** the server's own main event loop: how late its timers ran (a stall delays every batch) */
  event_loop?: EventLoopFigures;
}

/** Event-loop delay over the last window (monitorEventLoopDelay on the server's main thread), ms. */
export interface EventLoopFigures {
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
  window_s: number;
}

export interface LoadProgress {
  id: string;
  model: string;
  scenario: string;
  state: 'running' | 'done' | 'stopped' | 'failed';
  sent: number;
  answered: number;
  errors: number;
  elapsed_s: number;
  duration_s: number;
  recording?: string;
  /**
   * Where the generator runs: 'worker' = its own thread and event loop, a client over loopback HTTP (the
   * default, so it does not perturb what it measures); 'inprocess' = on the server's own event loop,
   * calling the scheduler directly (a demo mode, labelled as such).
   */
  generator?: 'worker' | 'inprocess';
  /** arrivals not sent because the run already had its most requests in flight (the server fell behind) */
  skipped?: number;
  /** why a run ended early or failed, for the dashboard */
  reason?: string;
  /** what the generator measured so far (client side, next to the server's queue/compute figures) */
  client?: LoadClientFigures;
  /** the recording's file could not be written (e.g. the disk is full): arrivals after it are lost */
  recording_error?: string;
}

/** The load generator's own figures for a run, µs. */
export interface LoadClientFigures {
  /** scheduled vs actual send time: the generator's accuracy (large = the figures are the client's) */
  send_lag_us: { p50: number; p99: number; max: number };
  /** send to last response byte, successful requests */
  latency_us: { p50: number; p99: number };
}

/** Send lag p99 above this (µs) means the generator could not keep its schedule; the dashboard warns. */
export const SEND_LAG_WARN_US = 5_000;

export interface Snapshot {
  server: ServerInfo;
  repositories: string[];
  models: ModelSnapshot[];
  memory: DeviceMemory[];
  stats: StatsMessage | null;
  /** scheduler clock now, microseconds, so the client can align event times */
  t: number;
  wall_ms: number;
}

export interface Frame {
  seq: number;
  t: number;
  events: SchedulerEvent[];
  /** events this client did not receive in this frame because it was sampled (slow client) */
  dropped: number;
}

/** A load run as the control channel asks for it (the load controller takes the same shape). */
export interface StartLoadRequest {
  model: string;
  /** the version the load goes to (the one picked in the dashboard); absent = the latest READY version */
  version?: string;
  scenario: string | Record<string, unknown>;
  rate?: number;
  concurrency?: number;
  duration?: number;
  seed?: number;
  record?: boolean;
  mode?: 'http' | 'inprocess';
}

/** Replays a recorded trace, `speed` times as fast, optionally to another model. */
export interface StartReplayRequest {
  trace: string;
  speed?: number;
  model?: string;
}

export type ControlMessage =
  | ({ action: 'setDynamicBatching'; model: string; version?: string } & DynamicBatchingPatch)
  | { action: 'setInstanceCount'; model: string; version?: string; group?: string; count: number }
  | { action: 'loadModel'; model: string }
  | { action: 'unloadModel'; model: string }
  | ({ action: 'startLoad' } & StartLoadRequest)
  | { action: 'stopLoad'; id?: string }
  | ({ action: 'startReplay' } & StartReplayRequest)
  /** writes the live config of `version` (default: the latest loaded) to the model's config.pbtxt */
  | { action: 'saveConfig'; model: string; version?: string; dryRun?: boolean }
  /** record the arrivals of whatever traffic reaches these models (all when absent) until stopRecording */
  | { action: 'startRecording'; models?: string[] }
  | { action: 'stopRecording'; id?: string };

/**
 * The dynamic_batching fields a live patch may change, in one list for everyone who checks or applies a
 * patch (control validation, the model manager, the scheduler, A/B restore).
 */
export const DYNAMIC_BATCHING_FIELDS = [
  'max_queue_delay_microseconds',
  'preferred_batch_size',
  'default_priority_level',
  'priority_levels',
  'default_queue_policy',
  'priority_queue_policy',
  'preserve_ordering',
] as const;
/** Patch fields: the dynamic_batching ones plus the model-level max_batch_size. */
export const BATCHING_PATCH_FIELDS = [...DYNAMIC_BATCHING_FIELDS, 'max_batch_size'] as const;

export interface DynamicBatchingPatch {
  max_queue_delay_microseconds?: number;
  preferred_batch_size?: number[];
  max_batch_size?: number;
  default_priority_level?: number;
  priority_levels?: number;
  default_queue_policy?: Record<string, unknown>;
  priority_queue_policy?: Record<string, Record<string, unknown>>;
  preserve_ordering?: boolean;
}

export type ControlAck = ({ ok: true } & Record<string, unknown>) | { ok: false; error: string };

/** Largest control message the server accepts, in bytes of JSON. */
export const MAX_CONTROL_BYTES = 64 * 1024;
