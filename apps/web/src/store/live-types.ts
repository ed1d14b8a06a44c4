/** Shapes the dashboard keeps about the server's live state. All times are µs on the scheduler clock. */
import type { AutotuneChangeReason, BatchTrigger, InstanceSnapshot, ModelSnapshot, RejectReason, RequestProtocol } from '@inferscope/core';

/** An instance as the snapshot describes it, plus the batch it runs now (kept from the event stream). */
export interface InstanceLive extends Omit<InstanceSnapshot, 'batch_id'> {
  /** the batch running now, if busy */
  batchId?: string;
  batchSize?: number;
  batchStart?: number;
  /** the batch it already holds to run next (the scheduler's prefetch), if any */
  nextBatchId?: string;
  nextSize?: number;
}

/** A model version as the snapshot describes it, with its instances and queues kept live from events. */
export interface ModelLive extends Omit<ModelSnapshot, 'instances' | 'files' | 'queue_depth'> {
  /** `name:version` */
  key: string;
  files: NonNullable<ModelSnapshot['files']>;
  instances: Map<string, InstanceLive>;
  /** requests waiting per priority level (1 = highest) */
  queued: Map<number, number>;
  /** stable index into the colour palette */
  colour: number;
  /** an ensemble: step requests sent per step since the snapshot */
  stepsSent?: number[];
}

export type RequestPhase = 'queued' | 'batched' | 'running' | 'done' | 'rejected';

export interface RequestLive {
  id: string;
  modelKey: string;
  priority: number;
  size: number;
  tQueued: number;
  phase: RequestPhase;
  delayed?: boolean;
  batchId?: string;
  instance?: string;
  tBatched?: number;
  tStarted?: number;
  tDone?: number;
  ok?: boolean;
  reason?: RejectReason;
  message?: string;
  totalUs?: number;
  /** the front end it came in on; absent for in-process requests (load generator, ensemble steps) */
  protocol?: RequestProtocol;
  /** a step request of an ensemble: `ensemble:version/request_id` of its ensemble request, and its step */
  parent?: string;
  step?: number;
  /** one response of a request that answers many times (a decoupled model): its index (0, 1, ...) */
  response?: number;
  /** answered by the response cache at the door: it never queued, batched or ran */
  cached?: true;
}

export interface BatchLive {
  id: string;
  modelKey: string;
  size: number;
  requests: number;
  trigger: BatchTrigger;
  oldestWaitUs: number;
  tFormed: number;
  instance?: string;
  tStarted?: number;
  tDone?: number;
  computeUs?: number;
  ok?: boolean;
  /** `model:version/request_id` of its requests while it is in flight */
  requestKeys: string[];
}

export interface StateChange {
  t: number;
  modelKey: string;
  instance?: string;
  state: string;
  reason?: string;
}

export interface QueueSample {
  t: number;
  modelKey: string;
  /** depth per priority level */
  depth: Record<number, number>;
  /** how long the oldest waiting request had waited */
  oldestWaitUs: number;
}

export interface MemorySample {
  t: number;
  device: string;
  used: number;
  budget: number;
}

export interface PerfPoint {
  t: number;
  modelKey: string;
  /** a label for the configuration the point was measured under */
  config: string;
  throughput: number;
  p99Us: number;
}

export interface ConfigLogEntry {
  t: number;
  modelKey: string;
  by: string;
  changes: { path: string; old: unknown; new: unknown }[];
  /** the autotuner's reason, when it made the change (by 'autotune') */
  reason?: AutotuneChangeReason;
}

export const modelKey = (name: string, version: string): string => `${name}:${version}`;
