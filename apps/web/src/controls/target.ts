/** Which model the controls act on: the picked one, or (with "all models") the first model. */
import { live } from '../store/app-store';
import { selectedModels } from '../store/select';
import type { ModelLive } from '../store/live-types';

export function controlTarget(pick: string, override?: string): ModelLive | undefined {
  if (override && live.models.get(override)) return live.models.get(override);
  return selectedModels(live, pick)[0];
}

/** The instance group the count slider changes (the first group, as most configs have one). */
export function firstGroup(m: ModelLive): string | undefined {
  const groups = m.config.instance_group as { name?: string }[] | undefined;
  return groups?.[0]?.name ?? [...m.instances.values()][0]?.group;
}

/** "4, 8 16" -> [4, 8, 16]; throws with a clear message on anything that is not a positive integer. */
export function parseSizes(text: string): number[] {
  const parts = text.split(/[\s,]+/).filter(Boolean);
  return parts.map((p) => {
    const n = Number(p);
    if (!Number.isInteger(n) || n <= 0) throw new Error(`'${p}' is not a positive whole number`);
    return n;
  });
}
