/**
 * Live changes to dynamic batching: merge a patch into the current config, validate the result as a whole
 * (a bad patch changes nothing) and list what changed for the config.changed event.
 *
 * The one implementation of the merge: the scheduler applies it to its slice of the config, the server's
 * model manager to the whole ModelConfig (adding only what it alone knows, such as the batch limit of the
 * loaded model file), so the change list in an acknowledgement and in config.changed cannot disagree.
 */
import type { ConfigChange } from '../events';
import type { DynamicBatchingPatch } from '../live-config/fields';
import { BATCHING_PATCH_FIELDS, DYNAMIC_BATCHING_FIELDS } from '../live-config/fields';
import type { DynamicBatchingInput, SchedulerConfigInput } from './config-input';
import { PolicyError, type BatchingPolicy } from './policy';
import { preferredOrDefault } from '../config/normalize';
import { LIVE_LIMITS, limitMessage, sizesLengthMessage, withinLimit, type LiveLimitName } from '../live-config/limits';

const PATCH_FIELDS = new Set<string>(BATCHING_PATCH_FIELDS);

export interface MergeResult<C> {
  config: C;
  changes: ConfigChange[];
}

export interface PatchResult extends MergeResult<SchedulerConfigInput> {
  policy: BatchingPolicy;
}

/** The patch fields bounded by the live limits table (the control schema applies the same table on the wire). */
const BOUNDED: ReadonlyArray<[field: string, limit: LiveLimitName]> = [
  ['max_queue_delay_microseconds', 'max_queue_delay_microseconds'], ['default_priority_level', 'default_priority_level'],
  ['priority_levels', 'priority_levels'],
];
const QUEUE_BOUNDED: ReadonlyArray<[field: string, limit: LiveLimitName]> = [
  ['default_timeout_microseconds', 'default_timeout_microseconds'], ['max_queue_size', 'max_queue_size'],
];

/** Each value of a patch inside LIVE_LIMITS; the rules between fields are the config file's (policy.ts). */
function checkLimits(patch: DynamicBatchingPatch): void {
  const p = patch as Record<string, unknown>;
  const bounded = (v: unknown, limit: LiveLimitName, field: string) => {
    if (v !== undefined && !withinLimit(limit, v)) throw new PolicyError(limitMessage(limit, field, v));
  };
  for (const [field, limit] of BOUNDED) bounded(p[field], limit, field);
  // 0 is its own refusal below (a model with or without a batch dimension)
  if (patch.max_batch_size !== 0) bounded(patch.max_batch_size, 'max_batch_size', 'max_batch_size');
  const sizes = patch.preferred_batch_size ?? [];
  if (sizes.length > LIVE_LIMITS.preferred_batch_sizes.max) {
    throw new PolicyError(sizesLengthMessage('preferred_batch_size', sizes.length));
  }
  for (const size of sizes) bounded(size, 'preferred_batch_size', 'preferred_batch_size');
  const queues = [['default_queue_policy', patch.default_queue_policy] as const,
    ...Object.entries(patch.priority_queue_policy ?? {}).map(([k, q]) => [`priority_queue_policy[${k}]`, q] as const)];
  for (const [where, q] of queues) {
    if (q === undefined) continue;
    for (const [field, limit] of QUEUE_BOUNDED) bounded(q[field], limit, `${where}.${field}`);
    const action = q.timeout_action;
    if (action !== undefined && action !== 'REJECT' && action !== 'DELAY') {
      throw new PolicyError(`'${where}.timeout_action' must be REJECT or DELAY, got ${JSON.stringify(action)}`);
    }
  }
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Patch values arrive as JSON; copying them keeps the new config from sharing objects with the caller. */
function copy<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}

/**
 * Merges a patch into any config with Triton's field names (the scheduler's slice or a whole ModelConfig)
 * without changing `current`. Refuses unknown fields and a max_batch_size change between 0 and non-zero
 * (that changes the model's input shapes); the values themselves are checked by the config rules
 * (policyFromConfig runs them on what the caller has not validated).
 */
export function mergeBatchingPatch<C extends SchedulerConfigInput>(current: C, patch: DynamicBatchingPatch): MergeResult<C> {
  if (patch === null || typeof patch !== 'object') throw new PolicyError('dynamic batching patch must be an object');
  for (const key of Object.keys(patch)) {
    if (!PATCH_FIELDS.has(key)) throw new PolicyError(`unknown dynamic batching field '${key}' (known: ${[...PATCH_FIELDS].join(', ')})`);
  }
  if (patch.preferred_batch_size !== undefined && !Array.isArray(patch.preferred_batch_size)) {
    throw new PolicyError(`dynamic_batching.preferred_batch_size must be a list of sizes, got ${JSON.stringify(patch.preferred_batch_size)}`);
  }
  checkLimits(patch);
  const changes: ConfigChange[] = [];
  const db: Record<string, unknown> = { ...(current.dynamic_batching ?? {}) };
  for (const f of DYNAMIC_BATCHING_FIELDS) {
    const v = (patch as Record<string, unknown>)[f];
    if (v === undefined) continue;
    if (!same(db[f], v)) changes.push({ path: `dynamic_batching.${f}`, old: copy(db[f]), new: copy(v) });
    db[f] = copy(v);
  }
  const next: C = { ...current, dynamic_batching: db as DynamicBatchingInput };
  if (patch.max_batch_size !== undefined) {
    const old = current.max_batch_size ?? 0;
    if ((old === 0) !== (patch.max_batch_size === 0)) {
      throw new PolicyError('max_batch_size cannot change between 0 and non-zero while loaded (it changes the model\'s input shapes)');
    }
    if (old !== patch.max_batch_size) changes.push({ path: 'max_batch_size', old, new: patch.max_batch_size });
    next.max_batch_size = patch.max_batch_size;
  }
  // A live "no preferred sizes" means what it means in a file (normalize.ts: max_batch_size is the
  // preferred size), or the live config could not be saved (the file would read back differently).
  if (patch.preferred_batch_size !== undefined) {
    const preferred = preferredOrDefault(db.preferred_batch_size as number[] | undefined, next.max_batch_size ?? 0);
    db.preferred_batch_size = preferred;
    const entry = changes.find((c) => c.path === 'dynamic_batching.preferred_batch_size');
    if (entry) entry.new = preferred;
    if (entry && same(entry.old, entry.new)) changes.splice(changes.indexOf(entry), 1);
  }
  if (current.dynamic_batching == null && changes.length > 0) {
    changes.unshift({ path: 'dynamic_batching', old: null, new: {} });
  }
  return { config: next, changes };
}
