/**
 * The manager's live configuration operations on one loaded model version: compute the change once (core's
 * live-config: new config, scheduler policy, change list), check the new config like a config file, and
 * only then hand that same result to the scheduler and keep it (with the changed paths saveConfig writes
 * back). A refused change leaves everything as it was.
 */
import { InferError } from '@inferscope/core';
import type { AutotuneChangeReason, ConfigChange, DynamicBatchingPatch, EventBus } from '@inferscope/core';
import type { ModelConfig } from '@inferscope/core/config';
import { planIterativeChange } from '@inferscope/core/iterative';
import type { IterativeKnobPatch } from '@inferscope/core/live-config';
import { IterativeScheduler } from '../generate/iterative-scheduler';
import { applyBatchingPatch, applyInstanceCount } from './live-config';
import type { ModelRuntime } from './runtime';
import type { ModelEntry } from './types';
import type { VersionSlot } from './types';

export interface LiveEditContext {
  runtime: ModelRuntime;
  gpuCount: number;
}

function validateLive(ctx: LiveEditContext, name: string, config: ModelConfig): void {
  const problems = ctx.runtime.config.validate(config, { folderName: name, gpuCount: ctx.gpuCount });
  if (problems.length > 0) throw new InferError('INVALID_ARG', problems[0].message);
}

function keep(slot: VersionSlot, config: ModelConfig, changes: ConfigChange[]): void {
  slot.config = config;
  for (const c of changes) slot.changedPaths.add(c.path);
}

export async function updateDynamicBatching(
  ctx: LiveEditContext, entry: ModelEntry, slot: VersionSlot, patch: DynamicBatchingPatch, by: string, reason?: AutotuneChangeReason,
): Promise<ConfigChange[]> {
  const next = applyBatchingPatch(entry.name, slot.config!, patch, entry.maxBatchLimit, (config) => validateLive(ctx, entry.name, config));
  if (next.changes.length === 0) return next.changes;
  await slot.scheduler!.applyLiveChange(next, by, reason);
  keep(slot, next.config, next.changes);
  return next.changes;
}

export async function setInstanceCount(
  ctx: LiveEditContext, entry: ModelEntry, slot: VersionSlot, group: string | undefined, count: number, by: string, reason?: AutotuneChangeReason,
): Promise<ConfigChange[]> {
  const next = applyInstanceCount(entry.name, slot.config!, group, count);
  validateLive(ctx, entry.name, next.config);
  if (next.changes.length === 0) return next.changes;
  if (next.delta > 0) ctx.runtime.memory?.checkAddInstances(entry.name, String(slot.version), next.delta);
  await slot.scheduler!.setInstanceCount(next.group, count, by, reason);
  keep(slot, next.config, next.changes);
  return next.changes;
}

/**
 * The response cache on or off for one version: its live config's response_cache.enable, which the manager
 * reads at every request (a request already past the door is not affected). Checked like a config file,
 * so a sequence or decoupled model is refused with Triton's words; a server without a cache refuses, since
 * the switch would do nothing.
 */
export function setResponseCache(
  ctx: LiveEditContext & { bus: EventBus; now: () => number; hasCache: boolean }, entry: ModelEntry, slot: VersionSlot, enabled: boolean, by: string,
): ConfigChange[] {
  if (!ctx.hasCache) throw new InferError('UNAVAILABLE', 'this server has no response cache: start it with --cache-config local,size=<bytes> to cache responses');
  const old = slot.config!.response_cache?.enable === true;
  if (old === enabled) return [];
  const config: ModelConfig = { ...slot.config!, response_cache: { ...slot.config!.response_cache, enable: enabled } };
  validateLive(ctx, entry.name, config);
  const changes: ConfigChange[] = [{ path: 'response_cache.enable', old, new: enabled }];
  keep(slot, config, changes);
  ctx.bus.emit({ type: 'config.changed', t: ctx.now(), model: entry.name, version: String(slot.version), changes, by });
  return changes;
}

/**
 * An iterative model's step knobs, live (core's planIterativeChange: the parameters and the change list;
 * the scheduler applies them at its next step boundary or refuses, see IterativeScheduler). Kept, and
 * written back by saveConfig as `parameters` entries, only once the scheduler took them.
 */
export async function setIterativeKnobs(ctx: LiveEditContext, entry: ModelEntry, slot: VersionSlot, patch: IterativeKnobPatch, by: string): Promise<ConfigChange[]> {
  const next = planIterativeChange(entry.name, slot.config!, patch);
  if (next.changes.length === 0) return next.changes;
  validateLive(ctx, entry.name, next.config);
  const scheduler = slot.scheduler;
  if (!(scheduler instanceof IterativeScheduler)) throw new InferError('UNSUPPORTED', `model '${entry.name}' version ${slot.version} is not served by the iterative scheduler`);
  await scheduler.applyIterativeChange(next, by);
  keep(slot, next.config, next.changes);
  return next.changes;
}
