/**
 * Live reconfiguration as pure functions over a ModelConfig: build the new config from a patch, refuse
 * what the model cannot do, and list the changes (dotted paths, old and new values) for config.changed.
 * The merge itself is core's (the scheduler runs the same one); this file adds what only the server
 * knows: the loaded model's limits. The manager validates the result like a config file, then checks it
 * the way the scheduler will (checkSchedulable), and only then applies it.
 */
import type { DynamicBatchingPatch, ConfigChange } from '@inferscope/core';
import { mergeBatchingPatch, policyFromConfig, PolicyError } from '@inferscope/core/scheduler/index.ts';
import type { ModelConfig } from '@inferscope/core/config/types.ts';
import { formatLivePath, limitMessage, livePath, parseLivePath, readLivePath, withinLimit, writeLivePath } from '@inferscope/core/live-config/index.ts';
import { ManagerError } from './errors';

function clone<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}

/** Core's PolicyError becomes the manager's INVALID_ARG (HTTP 400, the control ack's error text). */
function asInvalidArg<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof PolicyError) throw new ManagerError('INVALID_ARG', err.message);
    throw err;
  }
}

/**
 * Applies a dynamic batching patch. `maxBatchLimit` is what the model allows: the max_batch_size of the
 * config as loaded (written or auto-completed); a larger batch than the model was built/declared for
 * cannot be run, so the patch may only lower it.
 */
export function applyBatchingPatch(
  model: string,
  config: ModelConfig,
  patch: DynamicBatchingPatch,
  maxBatchLimit: number,
): { config: ModelConfig; changes: ConfigChange[] } {
  if (!config.dynamic_batching && !(config.max_batch_size && config.max_batch_size > 0)) {
    throw new ManagerError('INVALID_ARG', `model '${model}' has max_batch_size 0 and no dynamic_batching: it cannot batch`);
  }
  if (config.sequence_batching || config.ensemble_scheduling) {
    throw new ManagerError('INVALID_ARG', `model '${model}' uses ${config.sequence_batching ? 'sequence_batching' : 'ensemble_scheduling'}: dynamic batching cannot be changed`);
  }
  const v = patch.max_batch_size;
  if (typeof v === 'number' && v > maxBatchLimit) {
    throw new ManagerError('INVALID_ARG', `max_batch_size ${v} is above what model '${model}' allows (${maxBatchLimit}, from its configuration as loaded)`);
  }
  return asInvalidArg(() => mergeBatchingPatch(config, patch));
}

/** Refuses a config the scheduler would refuse, before anything changes (same checks, same words). */
export function checkSchedulable(config: ModelConfig): void {
  asInvalidArg(() => policyFromConfig(config));
}

/** Sets one instance group's count; `group` undefined = the only group (refused when there are several). */
export function applyInstanceCount(
  model: string,
  config: ModelConfig,
  group: string | undefined,
  count: number,
): { config: ModelConfig; changes: ConfigChange[]; group: string; delta: number } {
  if (!withinLimit('instance_count', count)) throw new ManagerError('INVALID_ARG', limitMessage('instance_count', 'count', count));
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
  const changes = old === count ? [] : [{ path: formatLivePath(livePath.instanceCount(index)), old, new: count }];
  return { config: next, changes, group: g.name ?? `${model}_${index}`, delta: count - old };
}

/**
 * Carries live changes into the config as written (before normalisation), so the saved file keeps the
 * user's text small and only changes what was changed live.
 */
export function carryChangesToRaw(raw: ModelConfig, live: ModelConfig, paths: Iterable<string>): ModelConfig {
  const out = clone(raw);
  for (const wire of paths) {
    const path = parseLivePath(wire);
    // `dynamic_batching` itself only says a patch created the message: its fields are paths of their own.
    if (path === undefined || path.kind === 'dynamic_batching') continue;
    if (path.kind === 'instance_count' && !live.instance_group?.[path.group]) continue;
    const value = clone(readLivePath(live, path));
    if (writeLivePath(out, path, value) || path.kind !== 'instance_count') continue;
    const liveGroup = live.instance_group?.[path.group];
    if (liveGroup && (!out.instance_group || out.instance_group.length === 0)) {
      // The file had no instance_group (Triton's default was used): write the count with the kind only.
      out.instance_group = [{ count: liveGroup.count, kind: liveGroup.kind }];
    }
  }
  return out;
}
