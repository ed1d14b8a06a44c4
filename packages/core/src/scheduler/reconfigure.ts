/**
 * Live changes to dynamic batching: merge a patch into the current config, validate the result as a whole
 * (a bad patch changes nothing) and list what changed for the config.changed event.
 */
import type { ConfigChange } from '../events';
import type { DynamicBatchingPatch } from '../live/protocol';
import { DYNAMIC_BATCHING_FIELDS } from '../live/protocol';
import type { DynamicBatchingInput, SchedulerConfigInput } from './config-input';
import { policyFromConfig, PolicyError, type BatchingPolicy } from './policy';

const DB_FIELDS = DYNAMIC_BATCHING_FIELDS;

export interface PatchResult {
  config: SchedulerConfigInput;
  policy: BatchingPolicy;
  changes: ConfigChange[];
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

export function applyBatchingPatch(current: SchedulerConfigInput, patch: DynamicBatchingPatch): PatchResult {
  if (patch === null || typeof patch !== 'object') throw new PolicyError('dynamic batching patch must be an object');
  const known = new Set<string>([...DB_FIELDS, 'max_batch_size']);
  for (const key of Object.keys(patch)) {
    if (!known.has(key)) throw new PolicyError(`unknown dynamic batching field "${key}" (known: ${[...known].join(', ')})`);
  }
  const changes: ConfigChange[] = [];
  const db: Record<string, unknown> = { ...(current.dynamic_batching ?? {}) };
  for (const f of DB_FIELDS) {
    if (!(f in patch)) continue;
    const v = (patch as Record<string, unknown>)[f];
    if (!same(db[f], v)) changes.push({ path: `dynamic_batching.${f}`, old: db[f], new: v });
    db[f] = v;
  }
  const next: SchedulerConfigInput = { ...current, dynamic_batching: db as DynamicBatchingInput };
  if (patch.max_batch_size !== undefined) {
    const old = current.max_batch_size ?? 0;
    if ((old === 0) !== (patch.max_batch_size === 0)) {
      throw new PolicyError('max_batch_size cannot change between 0 and non-zero while loaded (it changes the model\'s input shapes)');
    }
    if (old !== patch.max_batch_size) changes.push({ path: 'max_batch_size', old, new: patch.max_batch_size });
    next.max_batch_size = patch.max_batch_size;
  }
  if (current.dynamic_batching == null && changes.length > 0) {
    changes.unshift({ path: 'dynamic_batching', old: null, new: {} });
  }
  return { config: next, policy: policyFromConfig(next), changes };
}
