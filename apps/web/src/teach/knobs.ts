/**
 * The demo knobs a shared link carries (?delay=&pbs=&mbs=&inst=): applied to the lesson's first model
 * before its simulation starts, so a prepared link opens the exact demo; and read back from a control
 * change so the URL follows the sliders.
 */
import type { ControlMessage } from '@inferscope/core';
import { knobValuesOfPatch } from '@inferscope/core/live-config';
import type { UrlState } from '../store/url-state';
import type { SimScenario } from './sim-types';

export type DemoKnobs = Pick<UrlState, 'delay' | 'pbs' | 'mbs' | 'inst'>;

export function applyKnobs(s: SimScenario, k: DemoKnobs): SimScenario {
  if (k.delay === undefined && k.pbs === undefined && k.mbs === undefined && k.inst === undefined) return s;
  const [first, ...rest] = s.models;
  const config = structuredClone(first.config);
  if (k.mbs !== undefined) config.max_batch_size = k.mbs;
  if (k.delay !== undefined || k.pbs !== undefined) {
    const db = { ...((config.dynamic_batching as Record<string, unknown> | undefined) ?? {}) };
    if (k.delay !== undefined) db.max_queue_delay_microseconds = k.delay;
    if (k.pbs !== undefined) db.preferred_batch_size = k.pbs;
    config.dynamic_batching = db;
  }
  if (k.inst !== undefined) config.instance_group = [{ ...(config.instance_group?.[0] ?? {}), count: k.inst }];
  return { ...s, models: [{ ...first, config }, ...rest] };
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
