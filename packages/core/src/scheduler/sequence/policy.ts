/**
 * The sequence batcher's view of a model's config (sequence_batching), derived once, as BatchingPolicy is
 * for the dynamic batcher. Field meanings follow Triton's SequenceBatchScheduler::Create and the two
 * strategies' constructors.
 */
import { SEQUENCE_IDLE_DEFAULT_MICROSECONDS } from '../../config/normalize';
import type { SchedulerConfigInput } from '../config-input';
import type { BatchingPolicy } from '../policy';
import { controlTable, type ControlTable } from './controls';
import { stateSpecs, type StateSpec } from './state';

export interface SequencePolicy {
  strategy: 'direct' | 'oldest';
  /** 0 for a model without a batch dimension */
  maxBatchSize: number;
  /** sequence slots per instance: max_batch_size (at least 1); oldest: max_candidate_sequences when set */
  slotsPerInstance: number;
  /** max_sequence_idle_microseconds (Triton's default 1 s when 0 or absent) */
  idleUs: number;
  /** direct: max_queue_delay_microseconds and minimum_slot_utilization */
  direct: { maxQueueDelayUs: number; minimumSlotUtilization: number };
  /** oldest: the per-instance dynamic batcher's policy (preferred sizes, delay, max_batch_size) */
  oldest: BatchingPolicy;
  controls: ControlTable;
  states: readonly StateSpec[];
}

const num = (v: number | string | undefined): number => (v === undefined || v === '' ? 0 : Number(v));

/** `initialData`: bytes of initial_state data files by state input name (see stateSpecs). Throws StateConfigError. */
export function sequencePolicy(config: SchedulerConfigInput, initialData?: Readonly<Record<string, Uint8Array>>): SequencePolicy {
  const sb = config.sequence_batching ?? {};
  const maxBatchSize = num(config.max_batch_size);
  const oldest = sb.oldest ?? undefined;
  const strategy = oldest ? 'oldest' : 'direct';
  const candidates = num(oldest?.max_candidate_sequences);
  const preferred = (oldest?.preferred_batch_size ?? []).map(num).sort((a, b) => a - b);
  const mbs = Math.max(1, maxBatchSize);
  return {
    strategy,
    maxBatchSize,
    slotsPerInstance: strategy === 'oldest' && candidates > 0 ? candidates : mbs,
    idleUs: num(sb.max_sequence_idle_microseconds) || SEQUENCE_IDLE_DEFAULT_MICROSECONDS,
    direct: {
      maxQueueDelayUs: num(sb.direct?.max_queue_delay_microseconds),
      minimumSlotUtilization: sb.direct?.minimum_slot_utilization ?? 0,
    },
    oldest: {
      // Triton's OldestSequenceBatch runs a DynamicBatchScheduler with dynamic batching on (max_batch_size 0:
      // one request per batch, as decideBatch does without batching)
      batching: maxBatchSize > 0,
      maxBatchSize,
      preferred,
      maxPreferred: preferred.length > 0 ? preferred[preferred.length - 1]! : mbs,
      maxQueueDelayUs: num(oldest?.max_queue_delay_microseconds),
      preserveOrdering: oldest?.preserve_ordering === true,
      levels: 1,
      defaultLevel: 1,
      defaultQueue: { timeoutAction: 'REJECT', defaultTimeoutUs: 0, allowTimeoutOverride: false, maxQueueSize: 0 },
      levelQueues: new Map(),
      prefetch: false,
    },
    controls: controlTable(sb),
    states: stateSpecs(sb.state, maxBatchSize, initialData),
  };
}
