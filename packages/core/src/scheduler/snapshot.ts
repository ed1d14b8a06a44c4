/** What a scheduler reports about itself: counters and a point-in-time view for dashboards and tests. */
import type { InstanceState, RejectReason } from '../events';
import type { BatchDecision } from './decide';
import type { PoolInstance } from './instance-pool';

/** One instance as a snapshot shows it (the live wire's instance rows are these). */
export interface InstanceSnapshot {
  name: string;
  group: string;
  kind: string;
  device: string;
  state: InstanceState;
  /** batch currently running, if busy */
  batch_id?: string;
  reason?: string;
  /** busy holding a formed batch that waits for its rate-limiter resources (drawn waiting, not running) */
  waiting_for_resources?: true;
}

export interface SchedulerStats {
  accepted: number;
  completed: number;
  /** requests answered with an executor failure */
  failed: number;
  rejected: Partial<Record<RejectReason, number>>;
  delayed: number;
  batches: number;
  failedBatches: number;
  /** samples sent in batches */
  samples: number;
}

export function emptyStats(): SchedulerStats {
  return { accepted: 0, completed: 0, failed: 0, rejected: {}, delayed: 0, batches: 0, failedBatches: 0, samples: 0 };
}

export interface PendingBatchView {
  /** requests the next decision would take */
  requests: number;
  samples: number;
  oldest_wait_us: number;
  /** 'wait' with the time it will be sent unless it grows, or the trigger it would go with now */
  next: { wait_until_us: number } | { send: string };
}

/** a type alias (not an interface) so it is assignable to index-signature views such as the server's SchedulerView */
export type SchedulerSnapshot = {
  state: string;
  queue_depth: Record<string, number>;
  instances: InstanceSnapshot[];
  pending: PendingBatchView | null;
  /** answers held back by preserve_ordering */
  held: number;
  /**
   * batches formed while every instance was busy, waiting for the next free one (Triton's queued
   * payloads): how many, their requests, and those of the oldest when it is lent early to a busy instance
   * that can hand it back (its executor holds it behind the running batch)
   */
  payloads: PayloadsView;
  stats: SchedulerStats;
};

export interface PayloadsView {
  count: number;
  requests: number;
  lent_requests: number;
}

export function snapshotOf(
  state: string,
  depth: Record<string, number>,
  instances: readonly PoolInstance[],
  d: BatchDecision,
  nowUs: number,
  stats: SchedulerStats,
  held: number,
  payloads: PayloadsView = { count: 0, requests: 0, lent_requests: 0 },
  waitingForResources: (p: PoolInstance) => boolean = () => false,
): SchedulerSnapshot {
  const pending: PendingBatchView | null =
    d.count === 0
      ? null
      : {
          requests: d.count,
          samples: d.size,
          oldest_wait_us: nowUs - d.oldestUs,
          next: d.kind === 'wait' ? { wait_until_us: d.untilUs } : { send: d.trigger },
        };
  return {
    state,
    queue_depth: depth,
    instances: instances.map((p) => ({
      name: p.info.name, group: p.info.group, kind: p.info.kind, device: p.info.device, state: p.state,
      ...(p.batchId ? { batch_id: p.batchId } : {}), ...(p.reason ? { reason: p.reason } : {}),
      ...(waitingForResources(p) ? { waiting_for_resources: true as const } : {}),
    })),
    pending,
    held,
    payloads,
    stats: { ...stats, rejected: { ...stats.rejected } },
  };
}
