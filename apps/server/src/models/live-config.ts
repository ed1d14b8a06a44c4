/**
 * Live reconfiguration as pure functions over a ModelConfig: build the new config from a patch, refuse
 * what the model cannot do, and list the changes (dotted paths, old and new values) for config.changed.
 * The manager validates the result like a config file and only then applies it to the scheduler.
 */
import type { DynamicBatchingPatch, ConfigChange } from '@inferscope/core';
import { DYNAMIC_BATCHING_FIELDS, BATCHING_PATCH_FIELDS } from '@inferscope/core';
import type { ModelConfig, ModelDynamicBatching } from '@inferscope/core/config/types.ts';
import { ManagerError } from './errors';

const BATCHING_FIELDS = DYNAMIC_BATCHING_FIELDS;
const PATCH_FIELDS = new Set<string>(BATCHING_PATCH_FIELDS);

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function clone<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}

function isNonNegInt(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}

/**
 * Applies a dynamic batching patch. `maxBatchLimit` is what the model allows: the max_batch_size of the
 * config as loaded (written or auto-completed); a larger batch than the model was built/declared for
 * cannot be run, so the patch may only lower it (and not below the largest preferred size).
 */
export function applyBatchingPatch(
  model: string,
  config: ModelConfig,
  patch: DynamicBatchingPatch,
  maxBatchLimit: number,
): { config: ModelConfig; changes: ConfigChange[] } {
  for (const key of Object.keys(patch)) {
    if (!PATCH_FIELDS.has(key)) throw new ManagerError('INVALID_ARG', `unknown dynamic batching field '${key}'`);
  }
  if (!config.dynamic_batching && !(config.max_batch_size && config.max_batch_size > 0)) {
    throw new ManagerError('INVALID_ARG', `model '${model}' has max_batch_size 0 and no dynamic_batching: it cannot batch`);
  }
  if (config.sequence_batching || config.ensemble_scheduling) {
    throw new ManagerError('INVALID_ARG', `model '${model}' uses ${config.sequence_batching ? 'sequence_batching' : 'ensemble_scheduling'}: dynamic batching cannot be changed`);
  }
  const next = clone(config);
  const db: ModelDynamicBatching = next.dynamic_batching ?? {};
  const changes: ConfigChange[] = [];

  if (patch.max_batch_size !== undefined) {
    const v = patch.max_batch_size;
    if (!isNonNegInt(v) || v < 1) throw new ManagerError('INVALID_ARG', `max_batch_size must be a positive integer, got ${JSON.stringify(v)}`);
    if (v > maxBatchLimit) {
      throw new ManagerError('INVALID_ARG', `max_batch_size ${v} is above what model '${model}' allows (${maxBatchLimit}, from its configuration as loaded)`);
    }
    if (v !== next.max_batch_size) changes.push({ path: 'max_batch_size', old: next.max_batch_size, new: v });
    next.max_batch_size = v;
  }
  if (patch.max_queue_delay_microseconds !== undefined && !isNonNegInt(patch.max_queue_delay_microseconds)) {
    throw new ManagerError('INVALID_ARG', `max_queue_delay_microseconds must be a non-negative integer, got ${JSON.stringify(patch.max_queue_delay_microseconds)}`);
  }
  if (patch.preferred_batch_size !== undefined) {
    const p = patch.preferred_batch_size;
    if (!Array.isArray(p) || !p.every((x) => isNonNegInt(x) && x >= 1)) {
      throw new ManagerError('INVALID_ARG', `preferred_batch_size must be a list of positive integers, got ${JSON.stringify(p)}`);
    }
  }
  for (const field of BATCHING_FIELDS) {
    const value = (patch as Record<string, unknown>)[field];
    if (value === undefined) continue;
    const old = (db as Record<string, unknown>)[field];
    if (!same(old, value)) changes.push({ path: `dynamic_batching.${field}`, old: clone(old), new: clone(value) });
    (db as Record<string, unknown>)[field] = clone(value);
  }
  next.dynamic_batching = db;
  const maxBatch = next.max_batch_size ?? 0;
  for (const size of db.preferred_batch_size ?? []) {
    if (maxBatch > 0 && size > maxBatch) {
      throw new ManagerError(
        'INVALID_ARG',
        `dynamic batching preferred size must be <= max batch size for ${model} (preferred ${size} > max_batch_size ${maxBatch})`,
      );
    }
  }
  return { config: next, changes };
}

/** Sets one instance group's count; `group` undefined = the only group (refused when there are several). */
export function applyInstanceCount(
  model: string,
  config: ModelConfig,
  group: string | undefined,
  count: number,
): { config: ModelConfig; changes: ConfigChange[]; group: string; delta: number } {
  if (!isNonNegInt(count) || count < 1 || count > 64) {
    throw new ManagerError('INVALID_ARG', `instance count must be an integer between 1 and 64, got ${JSON.stringify(count)}`);
  }
  const groups = config.instance_group ?? [];
  let index: number;
  if (group === undefined) {
    if (groups.length !== 1) {
      throw new ManagerError('INVALID_ARG', `model '${model}' has ${groups.length} instance groups: say which one (${groups.map((g) => g.name).join(', ')})`);
    }
    index = 0;
  } else {
    index = groups.findIndex((g) => g.name === group);
    if (index < 0) throw new ManagerError('INVALID_ARG', `model '${model}' has no instance group '${group}'`);
  }
  const next = clone(config);
  const g = next.instance_group![index];
  const old = g.count ?? 1;
  g.count = count;
  const changes = old === count ? [] : [{ path: `instance_group[${index}].count`, old, new: count }];
  return { config: next, changes, group: g.name ?? `${model}_${index}`, delta: count - old };
}

/**
 * Carries live changes into the config as written (before normalisation), so the saved file keeps the
 * user's text small and only changes what was changed live.
 */
export function carryChangesToRaw(raw: ModelConfig, live: ModelConfig, paths: Iterable<string>): ModelConfig {
  const out = clone(raw);
  for (const path of paths) {
    if (path === 'max_batch_size') out.max_batch_size = live.max_batch_size;
    else if (path.startsWith('dynamic_batching.')) {
      const field = path.slice('dynamic_batching.'.length);
      out.dynamic_batching = out.dynamic_batching ?? {};
      (out.dynamic_batching as Record<string, unknown>)[field] = clone((live.dynamic_batching as Record<string, unknown> | undefined)?.[field]);
    } else if (path.startsWith('instance_group[')) {
      const index = Number(/^instance_group\[(\d+)\]/.exec(path)?.[1]);
      const liveGroup = live.instance_group?.[index];
      if (!liveGroup) continue;
      if (out.instance_group?.[index]) out.instance_group[index].count = liveGroup.count;
      else if (!out.instance_group || out.instance_group.length === 0) {
        // The file had no instance_group (Triton's default was used): write the count with the kind only.
        out.instance_group = [{ count: liveGroup.count, kind: liveGroup.kind }];
      }
    }
  }
  return out;
}
