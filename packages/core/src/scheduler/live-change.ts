/**
 * A live change to one loaded model, computed once: the patch is merged into the whole config, checked
 * against what the loaded model allows and against the scheduler's rules, and yields the new config, the
 * scheduler policy it runs on and the change list (for config.changed, the acknowledgement and saveConfig).
 * The server validates the new config like a file (a hook, before the scheduler's own checks), then hands this very result to the scheduler
 * (ModelScheduler.applyLiveChange): the patch is not merged a second time, so what the acknowledgement
 * says changed and what the scheduler runs on cannot disagree.
 *
 * Every refusal is a PolicyError (INVALID_ARG; nothing changed), the same words wherever it is planned.
 */
import type { ConfigChange } from '../events';
import { mergeBatchingPatch } from './reconfigure';
import { policyFromConfig, policyFromValidated, PolicyError, trustValidated, type BatchingPolicy } from './policy';
import type { SchedulerConfigInput } from './config-input';
import type { DynamicBatchingPatch } from '../live-config/fields';
import { limitMessage, withinLimit } from '../live-config/limits';
import { formatLivePath, livePath } from '../live-config/paths';
import { schedulerKindFor } from './seam';
import { ITERATIVE_KNOB_FIELDS } from '../live-config/iterative-knobs';

/** The config fields a live change reads besides the scheduler's slice. */
export interface LiveConfigInput extends SchedulerConfigInput {
  ensemble_scheduling?: unknown;
}

export interface BatchingChange<C> {
  config: C;
  policy: BatchingPolicy;
  changes: ConfigChange[];
}

export interface InstanceCountChange<C> {
  config: C;
  changes: ConfigChange[];
  /** the group's name, as the scheduler knows it */
  group: string;
  /** instances added (negative: removed) */
  delta: number;
}

/**
 * Applies a dynamic batching patch. `maxBatchLimit` is what the loaded model allows (its max_batch_size
 * as written or auto-completed): a larger batch than the model was built for cannot run, so a patch may
 * only lower it.
 */
export function planBatchingChange<C extends LiveConfigInput>(
  model: string, config: C, patch: DynamicBatchingPatch, maxBatchLimit: number,
  /** the caller's check of the whole new config (the server: the config file rules), run before the
   *  scheduler's, so a config that breaks both is refused in the config file's words */
  validate?: (next: C) => void,
): BatchingChange<C> {
  if (schedulerKindFor(config) === 'iterative') {
    // its knobs are continuous batching's: say where they are rather than that it "cannot batch"
    throw new PolicyError(`model '${model}' is an iterative model (sequence_batching { iterative_sequence: true }): change its continuous batching knobs (${ITERATIVE_KNOB_FIELDS.join(', ')}) with setIterativeKnobs, not dynamic batching`);
  }
  if (!config.dynamic_batching && !(config.max_batch_size && config.max_batch_size > 0)) {
    throw new PolicyError(`model '${model}' has max_batch_size 0 and no dynamic_batching: it cannot batch`);
  }
  if (config.sequence_batching || config.ensemble_scheduling) {
    throw new PolicyError(`model '${model}' uses ${config.sequence_batching ? 'sequence_batching' : 'ensemble_scheduling'}: dynamic batching cannot be changed`);
  }
  const v = patch.max_batch_size;
  if (typeof v === 'number' && v > maxBatchLimit) {
    throw new PolicyError(`max_batch_size ${v} is above what model '${model}' allows (${maxBatchLimit}, from its configuration as loaded)`);
  }
  const { config: next, changes } = mergeBatchingPatch(config, patch);
  // The caller's validation covers the scheduler's rules (they are the config file's); without one, the
  // scheduler's entry runs those rules itself.
  if (validate) validate(next);
  return { config: next, policy: validate ? policyFromValidated(trustValidated(next)) : policyFromConfig(next), changes };
}

/** Sets one instance group's count; `group` undefined = the only group (refused when there are several). */
export function planInstanceCount<C extends LiveConfigInput>(model: string, config: C, group: string | undefined, count: number): InstanceCountChange<C> {
  if (!withinLimit('instance_count', count)) throw new PolicyError(limitMessage('instance_count', 'count', count));
  const groups = config.instance_group ?? [];
  let index: number;
  if (group === undefined) {
    if (groups.length !== 1) {
      throw new PolicyError(`model '${model}' has ${groups.length} instance groups: say which one (${groups.map((g) => g.name).join(', ')})`);
    }
    index = 0;
  } else {
    index = groups.findIndex((g) => g.name === group);
    if (index < 0) throw new PolicyError(`model '${model}' has no instance group '${group}'`);
  }
  const old = groups[index].count ?? 1;
  const nextGroups = groups.map((g, i) => (i === index ? { ...g, count } : g));
  const changes = old === count ? [] : [{ path: formatLivePath(livePath.instanceCount(index)), old, new: count }];
  return { config: { ...config, instance_group: nextGroups }, changes, group: groups[index].name ?? `${model}_${index}`, delta: count - old };
}
