/**
 * BatchingPolicy: the narrow, validated view of a model's config that the queues and the batch decision run
 * on. Deriving it once (and again on every live change) keeps the hot path free of config parsing and
 * makes the decision independent of the whole ModelConfig.
 */
import type { DynamicBatchingInput, QueuePolicyInput, SchedulerConfigInput, TimeoutAction } from './config-input';
import type { ModelConfig } from '../config/types';
import { formatIssue } from '../config/errors';
import { InferError } from '../errors/infer-error';
import { IssueList } from '../config/validate/issues';
import { validateBatchSizeAndVersionPolicy, validateDynamicBatching } from '../config/validate/model';

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
   * Whether the batcher may queue payloads for the next free instance while every instance is busy
   * (payloads.ts; Triton's PriorityQueue::SupportPrefetching): only with priority_levels 0 and a queue policy
   * without timeout, timeout override or max_queue_size. In Triton a queued payload has left the queue, so
   * a later higher-priority request could no longer overtake it, a timeout could no longer refuse it, and
   * its requests would no longer count toward max_queue_size. Otherwise a batch is formed only when an
   * instance is free to take it.
   */
  prefetch: boolean;
}

/**
 * A config or live change the scheduler's rules refuse: an invalid argument (INVALID_ARG, HTTP 400), so
 * every caller (the server's control path, teaching mode, the autotuner) answers it in the same words
 * and with the same code without translating it.
 */
export class PolicyError extends InferError {
  constructor(message: string) {
    super('INVALID_ARG', message);
    this.name = 'PolicyError';
  }
}

declare const validated: unique symbol;
/**
 * A config the config engine's rules have passed (config/validate/model.ts: preferred sizes within
 * max_batch_size, priority levels, queue policies). The scheduler derives its policy from such a config
 * and checks nothing again; values of the right type are the parser's and the control schema's job.
 */
export type ValidatedConfig<C extends SchedulerConfigInput = SchedulerConfigInput> = C & { readonly [validated]: true };

/** Says that `config` was validated by the caller (the server validates every config like a file). */
export function trustValidated<C extends SchedulerConfigInput>(config: C): ValidatedConfig<C> {
  return config as ValidatedConfig<C>;
}

/**
 * Runs the config engine's scheduling rules on a config nobody validated yet (a test's literal, the
 * simulator's, a live patch merged in the scheduler); the first problem is thrown as a PolicyError in
 * the config file's words.
 */
export function validateSchedulerConfig<C extends SchedulerConfigInput>(config: C): ValidatedConfig<C> {
  const issues = new IssueList();
  // The rules read the fields the scheduler reads; the rest of a ModelConfig they do not look at.
  const asModel = { ...(config as unknown as ModelConfig), name: config.name || 'this model' };
  validateBatchSizeAndVersionPolicy({ ...asModel, version_policy: asModel.version_policy ?? {} }, issues, { gpuCount: 0 });
  validateDynamicBatching(asModel, issues, { gpuCount: 0 });
  if (issues.count > 0) throw new PolicyError(formatIssue(issues.issues[0]!));
  return trustValidated(config);
}

/** uint64 fields may arrive as decimal strings (protobuf JSON); absent = the proto default 0 */
const num = (v: number | string | undefined): number => (v === undefined || v === '' ? 0 : Number(v));

function queuePolicy(p: QueuePolicyInput | undefined): QueuePolicy {
  return {
    timeoutAction: p?.timeout_action === 'DELAY' ? 'DELAY' : 'REJECT',
    defaultTimeoutUs: num(p?.default_timeout_microseconds),
    allowTimeoutOverride: p?.allow_timeout_override === true,
    maxQueueSize: num(p?.max_queue_size),
  };
}

/** The policy of a config that has not been validated: validates it (throwing PolicyError), then derives. */
export function policyFromConfig(config: SchedulerConfigInput): BatchingPolicy {
  return policyFromValidated(validateSchedulerConfig(config));
}

/** The policy the queues and the batch decision run on, derived from a validated config. */
export function policyFromValidated(config: ValidatedConfig): BatchingPolicy {
  const maxBatchSize = num(config.max_batch_size);
  const db: DynamicBatchingInput | null | undefined = config.dynamic_batching;
  const batching = db != null && maxBatchSize > 0;
  const preferred = (db?.preferred_batch_size ?? []).map(num).sort((a, b) => a - b);
  const levelsRaw = num(db?.priority_levels);
  const levels = Math.max(1, levelsRaw);
  const defaultLevel = levelsRaw === 0 ? 1 : num(db?.default_priority_level);
  const base = queuePolicy(db?.default_queue_policy);
  const levelQueues = new Map<number, QueuePolicy>();
  for (const [key, own] of Object.entries(db?.priority_queue_policy ?? {})) levelQueues.set(Number(key), queuePolicy(own));
  // With priority_levels 0 the one level's effective policy is what Triton's check reads.
  const only = levelQueues.get(1) ?? base;
  const prefetch = levelsRaw === 0 && only.defaultTimeoutUs === 0 && !only.allowTimeoutOverride && only.maxQueueSize === 0;
  return {
    batching,
    maxBatchSize,
    preferred,
    maxPreferred: preferred.length > 0 ? preferred[preferred.length - 1] : Math.max(1, maxBatchSize),
    maxQueueDelayUs: num(db?.max_queue_delay_microseconds),
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
