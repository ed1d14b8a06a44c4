/**
 * The wire protocol of the live gateway (Socket.IO, same port as HTTP). Shared by the server gateway,
 * the dashboard and the tests so both ends agree at compile time.
 *
 * Server -> client: `snapshot` once on connect (and on request via `resync`), then `frame` every
 * 33-50 ms with coalesced SchedulerEvents, and `stats` about once a second (never sampled).
 * Client -> server: `control` with a ControlMessage and an acknowledgement callback receiving ControlAck;
 * `resync` (no payload) asks for a fresh snapshot.
 */
import type { AutotuneReport, SchedulerEvent, ModelState, InstanceState, MemoryEntry, ConfigChangedEvent, RejectReason, RequestCompletedEvent, RequestProtocol, SequenceView } from '../events';
import type { ControlAction, ControlMessage, ControlMessageOf } from './control-schema';
import type { ControlAck } from './control-acks';
import type { ModelConfig } from '../config/types';
import type { InstanceSnapshot, PayloadsView } from '../scheduler/snapshot';
import type { KvBlockMap } from '../kv-cache/block-allocator';
import type { ResponseCacheStats } from '../response-cache/response-cache';
import type { RateLimiterSnapshot } from '../rate-limiter/rate-limiter';
import type { GenerationMessage } from './generation';

export const WIRE = {
  snapshot: 'snapshot',
  frame: 'frame',
  stats: 'stats',
  /** an iterative model's token timeline, KV block map and figures, a few times a second (generation.ts) */
  generation: 'generation',
  control: 'control',
  resync: 'resync',
} as const;

export type { InstanceSnapshot } from '../scheduler/snapshot';
export { sequenceViewKey } from '../scheduler/sequence/view';

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
  config: ModelConfig;
  instances: InstanceSnapshot[];
  /** files in the version folder with sizes in bytes (for the architecture view and repo-size card) */
  files?: { path: string; bytes: number }[];
  /** queue depth per priority level right now */
  queue_depth?: Record<string, number>;
  /** batches waiting for a busy instance (Triton's queued payloads) and the requests of one lent early */
  payloads?: PayloadsView;
  /** an iterative model's KV block map right now (each block's owner and fill) */
  kv_blocks?: KvBlockMap;
  /** present when the autotuner runs (or ran) on this version: on/off, target, last reason, its status */
  autotune?: AutotuneReport;
  /** a stateful model (sequence_batching): each instance's slots and the id holding each, the backlog, state memory */
  sequence?: SequenceView;
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
  /**
   * Which server process this is (new at every start) and when it started (wall ms): a client that
   * reconnects to a different start id knows the server restarted, keeps its history (on the new
   * process's clock) and marks the restart.
   */
  start_id?: string;
  started_wall_ms?: number;
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
  /**
   * Running counts (stats/request-outcome.ts decides): completed = answered ok; failed = the failures
   * nv_inference_request_failure counts (answered with an error, or refused after it was queued: a
   * timeout, cancelled, drained), the sum of `failures`; rejected = every request the scheduler refused,
   * before queueing (queue full, invalid, unavailable: not failures, as in Triton) or after.
   */
  totals: { completed: number; rejected: number; failed: number; batches: number };
  /** running count of failed requests by Triton's nv_inference_request_failure reason (refusals before queueing are none) */
  failures?: Record<FailureReason, number>;
  memory_bytes: number;
  /**
   * requests that reached this version, by how they came in (refusals before queueing included): the
   * total since the server started (a reload does not reset it) and the rate over the window
   */
  arrivals?: Record<RequestSource, { total: number; per_s: number }>;
  /**
   * the response cache since the version loaded, when it enables it: hits (answered before any queue, and
   * counted in the window's requests and latency above with no compute) and misses (requests that ran
   * and stored their response)
   */
  cache?: { hits: number; misses: number };
}

/** How a request reached a model: a front end's protocol, or in process (load generator, ensemble steps). */
export type RequestSource = RequestProtocol | 'in_process';
export const REQUEST_SOURCES: readonly RequestSource[] = ['http', 'grpc', 'in_process'];

/** Triton's failure reasons (the `reason` label of nv_inference_request_failure). */
export type FailureReason = 'REJECTED' | 'CANCELED' | 'BACKEND' | 'OTHER';
export const FAILURE_REASONS: readonly FailureReason[] = ['REJECTED', 'CANCELED', 'BACKEND', 'OTHER'];

/**
 * Why a request that was answered with an error failed, in Triton's terms: cancelled (its client left
 * before its instance began it, or the model answered it CANCELLED) is CANCELED, any other failure of
 * its execution BACKEND. The one rule every fold of request.completed uses (statistics, metrics, live).
 */
export function completedFailureReason(e: Pick<RequestCompletedEvent, 'code'>): FailureReason {
  return e.code === 'CANCELLED' ? 'CANCELED' : 'BACKEND';
}

/** Our reject reasons in Triton's terms: queue full and timeout are REJECTED, execution errors BACKEND. */
export function failureReason(r: RejectReason): FailureReason {
  switch (r) {
    case 'queue_full':
    case 'timeout':
      return 'REJECTED';
    case 'cancelled':
      return 'CANCELED';
    case 'failed':
      return 'BACKEND';
    default:
      return 'OTHER';
  }
}

export interface StatsMessage {
  t: number;
  wall_ms: number;
  models: ModelAggregate[];
  load?: LoadProgress[];
  /** host CPU utilisation over the last interval, 0..1 (Triton's nv_cpu_utilization) */
  cpu?: { utilization: number };
  /** the server's own main event loop: how late its timers ran (a stall delays every batch) */
  event_loop?: EventLoopFigures;
  /** the latest config sweep started from the dashboard (running or finished) */
  sweep?: SweepProgress;
  /** every version the autotuner runs (or ran) on, with its status now (it changes without a config change) */
  autotune?: ({ model: string; version: string } & AutotuneReport)[];
  /** the one response cache every model shares, when the server has one: how full it is and its churn */
  response_cache?: ResponseCacheFigures;
  /** the rate limiter when it limits: each resource's count, who holds it and who waits (drawn by the state view) */
  rate_limiter?: RateLimiterSnapshot;
}

/** The cache-wide figures the performance view draws (the nv_cache_* gauges' values). */
export type ResponseCacheFigures = Pick<ResponseCacheStats, 'capacity' | 'bytes' | 'entries' | 'evictions' | 'utilization'>;
export type { RateLimiterSnapshot } from '../rate-limiter/rate-limiter';

/** The cache's figures for the wire: only these (its lookup and insert counters ride the metrics). */
export function cacheFigures(s: ResponseCacheStats): ResponseCacheFigures {
  return { capacity: s.capacity, bytes: s.bytes, entries: s.entries, evictions: s.evictions, utilization: s.utilization };
}

/** Event-loop delay over the last window (monitorEventLoopDelay on the server's main thread), ms. */
export interface EventLoopFigures {
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
  window_s: number;
}

/** One configuration a sweep tries (apps/server/src/clients/analyze). */
export interface SweepConfig {
  instances: number;
  max_batch_size: number;
  max_queue_delay_microseconds: number;
  /** [] = no preferred sizes (send at max_batch_size or at the delay) */
  preferred_batch_size: number[];
}

/** What a sweep measured for one config (client-side throughput and latency, server-side queue/compute). */
export interface SweepResult {
  config: SweepConfig;
  /** inferences per second (client side, stable windows) */
  throughput_per_s: number;
  latency_us: { p50: number; p95: number; p99: number };
  avg_batch: number;
  queue_us: number;
  compute_us: number;
  memory_bytes: number;
  errors: number;
  stable: boolean;
  /** with repeats (analyze --repeat N): the range over the N measurements; the figures above are medians */
  spread?: { repeats: number; throughput_per_s: [number, number]; p99_us: [number, number] };
}

/** A result placed against the budgets: rank 1 is the best within them; null = excluded (why). */
export interface RankedResult extends SweepResult {
  rank: number | null;
  pareto: boolean;
  excluded?: string;
  /** ranked, but its measured range overlaps the one ranked above it: the order of the two is noise */
  within_noise_of?: number;
}

export interface SweepProgress {
  id: string;
  model: string;
  version?: string;
  state: 'running' | 'done' | 'failed' | 'stopped';
  /** configs measured or skipped so far, of `total` */
  done: number;
  total: number;
  /** the config being measured now */
  current?: SweepConfig;
  error?: string;
  latency_budget_us?: number;
  /** ranked results so far (final ranking when done) */
  results: RankedResult[];
  skipped: number;
  /** the config in force before the sweep (restored at the end) */
  original?: SweepConfig;
}

/**
 * The last minutes the server kept for a client that connects now, so its charts do not start empty:
 * per-second stats (oldest first, without load progress) and the recent config changes (chart markers).
 * Bounded by count and by bytes on the server.
 */
export interface LiveHistory {
  stats: StatsMessage[];
  config_changes: ConfigChangedEvent[];
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
  /**
   * The server's own figures over the run's window (perf_analyzer's "Server:" block): what the server
   * measured for the run's model(s) from the run's start to its last answer, frozen when the run ends.
   */
  server?: LoadServerFigures;
  /** the recording's file could not be written (e.g. the disk is full): arrivals after it are lost */
  recording_error?: string;
  /** a replay: what the recorded run measured (the recording's summary line), to read the replay against */
  recorded?: RecordedRun;
}

/** A recording's summary line: what the recorded run measured, as a load run reports it. */
export interface RecordedRun {
  sent?: number;
  answered?: number;
  errors?: number;
  elapsed_s?: number;
  client?: LoadClientFigures;
  server?: LoadServerFigures;
}

/** The load generator's own figures for a run, µs. */
export interface LoadClientFigures {
  /** scheduled vs actual send time: the generator's accuracy (large = the figures are the client's) */
  send_lag_us: { p50: number; p99: number; max: number };
  /** send to last response byte, successful requests */
  latency_us: { p50: number; p99: number };
}

/**
 * Server-side figures of a load run, µs: requests the server answered for the run's model(s) within the
 * run's window (other traffic to the same model in that window counts too, as in perf_analyzer's
 * statistics diff), their end-to-end latency inside the server, and the mean queue and compute times.
 */
export interface LoadServerFigures {
  /** requests that reached the model (successes and failures, as Triton's statistics count them; a refusal before queueing is neither) */
  requests: number;
  /** of `requests`, the failures (stats/request-outcome.ts): answered with an error, or refused after queueing */
  failed: number;
  latency_us: { p50: number; p99: number };
  queue_us: number;
  compute_us: number;
  /** batches those requests ran in, and their mean size */
  batches: number;
  avg_batch_size: number;
}

/** Send lag p99 above this (µs) means the generator could not keep its schedule; the dashboard warns. */
export const SEND_LAG_WARN_US = 5_000;

export interface Snapshot {
  server: ServerInfo;
  repositories: string[];
  models: ModelSnapshot[];
  memory: DeviceMemory[];
  stats: StatsMessage | null;
  /** recent per-second stats and config changes (absent from servers that keep none) */
  history?: LiveHistory;
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
export type StartLoadRequest = Omit<ControlMessageOf<'startLoad'>, 'action'>;

/** Replays a recorded trace, `speed` times as fast, optionally to another model. */
export type StartReplayRequest = Omit<ControlMessageOf<'startReplay'>, 'action'>;

// Control messages are declared once, as schemas (control-schema.ts): the types come from there. Only the
// types are re-exported, so the dashboard's bundle does not carry the schema library; the server imports
// the schemas from '@inferscope/core/live/control-schema.ts'.
export type { ControlAction, ControlMessage, ControlMessageOf } from './control-schema';

/** A sweep run on the server, as the dashboard asks for it (lists are the axes of the grid). */
export type StartSweepRequest = Omit<ControlMessageOf<'startSweep'>, 'action'>;

// The live-patch vocabulary is the live-config module's (a domain concept, not a wire detail); the
// protocol re-exports it because control messages carry it.
export { DYNAMIC_BATCHING_FIELDS, BATCHING_PATCH_FIELDS, type DynamicBatchingField, type DynamicBatchingPatch } from '../live-config/fields';


/** A control message's answer; a refusal carries Triton's code as every other protocol's answer does. */
// What each control action answers (ControlAckBodies, ControlAckOf, ControlAck): control-acks.ts
export * from './control-acks';

/** A control message as a client sends it: the message plus the control token when one is configured. */
export type ControlRequest = ControlMessage & { token?: string };

/**
 * Socket.IO's typed event maps, shared by the gateway and every client (dashboard, A/B runner, tests).
 * The server still validates what arrives on `control` (validateControlMessage): a map types the honest
 * sender, a schema checks the rest.
 */
export interface ServerToClientEvents {
  [WIRE.snapshot]: (snapshot: Snapshot) => void;
  [WIRE.frame]: (frame: Frame) => void;
  [WIRE.stats]: (stats: StatsMessage) => void;
  [WIRE.generation]: (message: GenerationMessage) => void;
}
export interface ClientToServerEvents {
  [WIRE.resync]: () => void;
  [WIRE.control]: (msg: ControlRequest, ack: (answer: ControlAck) => void) => void;
}

/** Largest control message the server accepts, in bytes of JSON. */
export const MAX_CONTROL_BYTES = 64 * 1024;
