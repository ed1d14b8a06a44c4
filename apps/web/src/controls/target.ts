/**
 * Which model the controls and the load panel act on: the picked one; with "all models", the model that
 * has traffic now (the one being tuned), else the batching model built for the largest batches (an
 * alphabetical first pick sent the demo's load to the compute-bound CNN, which it overloads).
 */
import { live } from '../store/app-store';
import { selectedModels } from '../store/select';
import type { ModelLive } from '../store/live-types';
import type { LiveModel } from '../store/live-model';

export function controlTarget(pick: string, override?: string): ModelLive | undefined {
  if (override && live.models.get(override)) return live.models.get(override);
  const models = selectedModels(live, pick);
  return pick === 'all' ? defaultTarget(live, models) : models[0];
}

export function defaultTarget(source: Pick<LiveModel, 'latestAggregate'>, models: ModelLive[]): ModelLive | undefined {
  const rate = (m: ModelLive) => source.latestAggregate(m.key)?.requests_per_s ?? 0;
  const busiest = models.reduce<ModelLive | undefined>((best, m) => (rate(m) > (best ? rate(best) : 0) ? m : best), undefined);
  if (busiest) return busiest;
  const maxBatch = (m: ModelLive) => (m.config.dynamic_batching !== undefined ? Number(m.config.max_batch_size ?? 0) : 0);
  const batching = models.filter((m) => m.state === 'READY' && maxBatch(m) > 0);
  // Largest max_batch_size first, then the highest version (the one startLoad sends to), then the name.
  batching.sort((a, b) => maxBatch(b) - maxBatch(a) || Number(b.version) - Number(a.version) || a.name.localeCompare(b.name));
  return batching[0] ?? models[0];
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
