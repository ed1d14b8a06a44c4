/** What a sequence batcher shows: each instance's slots and the sequence holding each, and the backlog. */
import type { InstanceSnapshot, SchedulerStats } from '../snapshot';
import type { Lane } from './lanes';
import type { SequencePolicy } from './policy';
import type { Backlog } from './slots';
import type { StateStore } from './state';
import type { CorrelationId } from './types';
import { SEQUENCE_VIEW_BACKLOG_MAX, type SequenceView } from './view';
import type { CorrelationIdView } from '../../events';

export type { CorrelationIdView } from '../../events';

export interface SlotView {
  slot: number;
  /** the sequence holding the slot, null when free */
  sequence: CorrelationIdView | null;
  /** its requests waiting on the slot */
  queued: number;
  /** oldest strategy: one of its requests is in the instance's batcher or running */
  in_flight: boolean;
}

export type SequenceSnapshot = {
  state: string;
  strategy: 'direct' | 'oldest';
  /** the dynamic batcher's instance rows, each with its slots */
  instances: (InstanceSnapshot & { slots: SlotView[] })[];
  /** requests accepted and not yet in a batch (slot queues and backlog), as one level */
  queue_depth: Record<string, number>;
  backlog: { sequence: CorrelationIdView; requests: number }[];
  /** live sequences' implicit state: how many hold some, and its bytes */
  state_memory: { sequences: number; bytes: number };
  stats: SchedulerStats;
  /** the dashboard's view (the same facts, as the live snapshot and `sequence.slots` events carry them) */
  sequence: SequenceView;
};

export function idView(id: CorrelationId): CorrelationIdView {
  return { id: String(id), type: typeof id === 'bigint' ? 'UINT64' : 'STRING' };
}

export function sequenceSnapshot<P, R>(
  state: string,
  policy: SequencePolicy,
  lanes: readonly Lane<P, R>[],
  backlog: readonly Backlog<unknown>[],
  states: StateStore,
  stats: SchedulerStats,
  waiting: number,
): SequenceSnapshot {
  const view = sequenceView(policy, lanes, backlog, states);
  return {
    state,
    strategy: policy.strategy,
    queue_depth: { '1': waiting },
    instances: lanes.map((l) => ({
      name: l.inst.info.name, group: l.inst.info.group, kind: l.inst.info.kind, device: l.inst.info.device,
      state: l.inst.state,
      ...(l.inst.batchId ? { batch_id: l.inst.batchId } : {}),
      slots: l.slots.map((s) => ({
        slot: s.ref.index,
        sequence: s.cid === undefined ? null : idView(s.cid),
        queued: s.queue.filter((x) => x !== null).length,
        in_flight: s.inFlight,
      })),
    })),
    backlog: backlog.map(backlogRow),
    state_memory: view.state_memory,
    stats: { ...stats, rejected: { ...stats.rejected } },
    sequence: view,
  };
}

const backlogRow = (b: Backlog<unknown>) => ({ sequence: idView(b.id), requests: b.entries.length });

export function sequenceView<P, R>(policy: SequencePolicy, lanes: readonly Lane<P, R>[], backlog: readonly Backlog<unknown>[], states: StateStore): SequenceView {
  return {
    strategy: policy.strategy,
    instances: lanes.map((l) => ({ instance: l.inst.info.name, slots: l.slots.map((s) => ({ slot: s.ref.index, sequence: s.cid === undefined ? null : idView(s.cid) })) })),
    backlog: backlog.slice(0, SEQUENCE_VIEW_BACKLOG_MAX).map(backlogRow),
    backlog_total: backlog.length,
    state_memory: { sequences: states.count, bytes: states.bytes },
  };
}
