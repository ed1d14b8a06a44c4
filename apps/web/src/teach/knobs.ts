/**
 * The demo knobs a shared link carries (?delay=&pbs=&mbs=&inst=): planned as live changes of the lesson's
 * first model before its simulation starts, so a prepared link opens the exact demo; and read back from a control
 * change so the URL follows the sliders.
 */
import type { ControlMessage } from '@inferscope/core';
import { KNOBS, knobValuesOfPatch, splitKnobPatch, type KnobPatch } from '@inferscope/core/live-config';
import { PolicyError, planBatchingChange, planInstanceCount } from '@inferscope/core/scheduler';
import type { UrlState } from '../store/url-state';
import type { SimScenario } from './sim-types';

export type DemoKnobs = Pick<UrlState, 'delay' | 'pbs' | 'mbs' | 'inst'>;

/**
 * The knobs as live changes planned by core's one planner (planBatchingChange / planInstanceCount), as the
 * server plans a control message: a link can open only a demo the server would accept (max_batch_size at
 * most as loaded, preferred sizes within it, LIVE_LIMITS' instance counts). A refused group of knobs is
 * left out and the lesson opens with its own values there.
 */
export function applyKnobs(s: SimScenario, k: DemoKnobs): SimScenario {
  // the knobs by field, through core's knob table (the URL key of each field), split as the A/B splits them
  const patch: KnobPatch = {};
  for (const knob of KNOBS) if (k[knob.urlKey] !== undefined) Object.assign(patch, { [knob.field]: k[knob.urlKey] });
  const { batching, instances } = splitKnobPatch(patch);
  if (Object.keys(batching).length === 0 && instances === undefined) return s;
  const [first, ...rest] = s.models;
  let config = first.config;
  if (Object.keys(batching).length > 0) config = orKept(config, (c) => planBatchingChange(first.name, c, batching, first.config.max_batch_size ?? 0).config);
  if (instances !== undefined) {
    // a model without instance_group runs Triton's one default group: the count is that group's
    const grouped = config.instance_group?.length ? config : { ...config, instance_group: [{ count: 1 }] };
    config = orKept(config, () => planInstanceCount(first.name, grouped, undefined, instances).config);
  }
  return config === first.config ? s : { ...s, models: [{ ...first, config }, ...rest] };
}

/** The planned config, or `config` as it was when the planner refuses the change (a PolicyError). */
function orKept<C>(config: C, plan: (c: C) => C): C {
  try {
    return plan(config);
  } catch (err) {
    if (err instanceof PolicyError) return config;
    throw err;
  }
}

/** The URL fields an accepted control message changes (only for the lesson's first model), by core's knob table. */
export function knobsFromControl(msg: ControlMessage, firstModel: string): Partial<DemoKnobs> {
  if (!('model' in msg) || msg.model !== firstModel) return {};
  if (msg.action === 'setInstanceCount') return knobValuesOfPatch({ instance_count: msg.count });
  if (msg.action !== 'setDynamicBatching') return {};
  return knobValuesOfPatch(msg);
}

/** The demo knobs and playback position belong to one lesson: a new lesson starts from its own. */
export const LESSON_KNOBS_CLEARED = { delay: undefined, pbs: undefined, mbs: undefined, inst: undefined, t: undefined, speed: undefined, gap: undefined, ex: undefined };
