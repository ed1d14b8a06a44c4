/**
 * BatchingPolicy: the narrow, validated view of a model's config that the queues and the batch decision run
 * on. Deriving it once (and again on every live change) keeps the hot path free of config parsing and
 * makes the decision independent of the whole ModelConfig.
 */
import type { DynamicBatchingInput, QueuePolicyInput, SchedulerConfigInput, TimeoutAction } from './config-input';

export interface QueuePolicy {
  timeoutAction: TimeoutAction;
  /** 0 = requests never time out */
  defaultTimeoutUs: number;
  allowTimeoutOverride: boolean;
  /** 0 = unbounded */
  maxQueueSize: number;
}

export interface BatchingPolicy {
  /** false: no dynamic_batching or max_batch_size 0, each request runs alone */
  batching: boolean;
  /** 0 for models without a batch dimension */
  maxBatchSize: number;
  preferred: readonly number[];
  /** largest preferred size, or maxBatchSize when there are none */
  maxPreferred: number;
  maxQueueDelayUs: number;
  preserveOrdering: boolean;
  /** number of levels, at least 1 (priority_levels 0 means one level) */
  levels: number;
  /** 1-based level given to requests without (or with an out-of-range) priority */
  defaultLevel: number;
  /** the queue policy of every level without its own entry (read through `queueFor`) */
  defaultQueue: QueuePolicy;
  /**
   * Levels with their own priority_queue_policy. Sparse on purpose: priority_levels may be 2^32 (valid in
   * Triton), so nothing may cost memory or time per configured level, only per level named or in use.
   */
  levelQueues: ReadonlyMap<number, QueuePolicy>;
  /**
   * Whether batches may be formed while every instance is busy, to wait in the model's queue of formed
   * batches (Triton's PriorityQueue::SupportPrefetching): only with priority_levels 0 and a queue policy
   * without timeout, timeout override or max_queue_size. A formed batch has left the queue, so a later
   * higher-priority request could no longer overtake it, a timeout could no longer refuse it, and its
   * requests would no longer count toward max_queue_size. Otherwise a batch is formed only when an
   * instance is free to take it.
   */
  prefetch: boolean;
}

export class PolicyError extends Error {
  override name = 'PolicyError';
}

function toInt(v: number | string | undefined, field: string, def: number): number {
  if (v === undefined || v === null || v === '') return def;
  const n = typeof v === 'string' ? Number(v) : v;
  if (!Number.isFinite(n) || !Number.isInteger(n) || n < 0) {
    throw new PolicyError(`${field} must be a non-negative integer, got ${JSON.stringify(v)}`);
  }
  return n;
}

function queuePolicy(p: QueuePolicyInput | undefined, field: string): QueuePolicy {
  const action = p?.timeout_action ?? 'REJECT';
  if (action !== 'REJECT' && action !== 'DELAY') {
    throw new PolicyError(`${field}.timeout_action must be REJECT or DELAY, got ${JSON.stringify(action)}`);
  }
  return {
    timeoutAction: action,
    defaultTimeoutUs: toInt(p?.default_timeout_microseconds, `${field}.default_timeout_microseconds`, 0),
    allowTimeoutOverride: p?.allow_timeout_override === true,
    maxQueueSize: toInt(p?.max_queue_size, `${field}.max_queue_size`, 0),
  };
}

export function policyFromConfig(config: SchedulerConfigInput): BatchingPolicy {
  const maxBatchSize = toInt(config.max_batch_size, 'max_batch_size', 0);
  const db: DynamicBatchingInput | null | undefined = config.dynamic_batching;
  const batching = db != null && maxBatchSize > 0;
  const preferred = [...(db?.preferred_batch_size ?? [])].map((n, i) =>
    toInt(n, `dynamic_batching.preferred_batch_size[${i}]`, 0),
  );
  if (batching) {
    for (const p of preferred) {
      if (p < 1 || p > maxBatchSize) {
        throw new PolicyError(`dynamic_batching.preferred_batch_size ${p} must be between 1 and max_batch_size ${maxBatchSize}`);
      }
    }
  }
  preferred.sort((a, b) => a - b);
  const levelsRaw = toInt(db?.priority_levels, 'dynamic_batching.priority_levels', 0);
  const levels = Math.max(1, levelsRaw);
  let defaultLevel = toInt(db?.default_priority_level, 'dynamic_batching.default_priority_level', 0);
  if (levelsRaw > 0 && (defaultLevel < 1 || defaultLevel > levelsRaw)) {
    throw new PolicyError(`dynamic_batching.default_priority_level must be between 1 and priority_levels ${levelsRaw}, got ${defaultLevel}`);
  }
  if (levelsRaw === 0) defaultLevel = 1;
  const base = queuePolicy(db?.default_queue_policy, 'dynamic_batching.default_queue_policy');
  const levelQueues = new Map<number, QueuePolicy>();
  for (const [key, own] of Object.entries(db?.priority_queue_policy ?? {})) {
    const k = Number(key);
    if (!Number.isInteger(k) || k < 1 || k > levels) {
      throw new PolicyError(`dynamic_batching.priority_queue_policy has level ${key} outside 1..${levels}`);
    }
    levelQueues.set(k, queuePolicy(own, `dynamic_batching.priority_queue_policy[${key}]`));
  }
  // With priority_levels 0 the one level's effective policy is what Triton's check reads.
  const only = levelQueues.get(1) ?? base;
  const prefetch = levelsRaw === 0 && only.defaultTimeoutUs === 0 && !only.allowTimeoutOverride && only.maxQueueSize === 0;
  return {
    batching,
    maxBatchSize,
    preferred,
    maxPreferred: preferred.length > 0 ? preferred[preferred.length - 1] : Math.max(1, maxBatchSize),
    maxQueueDelayUs: toInt(db?.max_queue_delay_microseconds, 'dynamic_batching.max_queue_delay_microseconds', 0),
    preserveOrdering: db?.preserve_ordering === true,
    levels,
    defaultLevel,
    defaultQueue: base,
    levelQueues,
    prefetch,
  };
}

/** the queue policy of one level */
export function queueFor(policy: BatchingPolicy, level: number): QueuePolicy {
  return policy.levelQueues.get(level) ?? policy.defaultQueue;
}

/** Triton: a request without priority (0) or with one outside 1..levels gets the default level. */
export function levelFor(policy: BatchingPolicy, priority: number | undefined): number {
  if (priority === undefined || !Number.isInteger(priority) || priority < 1 || priority > policy.levels) {
    return policy.defaultLevel;
  }
  return priority;
}

/**
 * The queue timeout of one request. As Triton's PolicyQueue: an override is honoured only when allowed,
 * non-zero and shorter than the default; with default 0 (no timeout) nothing can "shorten" it, so none applies.
 */
export function timeoutFor(q: QueuePolicy, requestTimeoutUs: number | undefined): number {
  let t = q.defaultTimeoutUs;
  if (q.allowTimeoutOverride && requestTimeoutUs !== undefined && requestTimeoutUs > 0 && requestTimeoutUs < t) {
    t = requestTimeoutUs;
  }
  return t;
}
