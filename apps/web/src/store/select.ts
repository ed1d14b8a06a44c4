/** Which models a view shows: all, or the one picked in the URL (a `name:version` key or a bare name). */
import type { LiveModel } from './live-model';
import type { ModelLive } from './live-types';

export function selectedModels(live: LiveModel, pick: string): ModelLive[] {
  const all = [...live.models.values()];
  if (pick === 'all') return all;
  const exact = live.models.get(pick);
  if (exact) return [exact];
  return all.filter((m) => m.name === pick);
}

/** The stats key to combine: 'all' or the one model's key (or 'all' if the pick matches nothing yet). */
export function statsKey(live: LiveModel, pick: string): string {
  if (pick === 'all') return 'all';
  const ms = selectedModels(live, pick);
  return ms.length === 1 ? ms[0].key : 'all';
}

/** `mlp_classifier v1`: how a model version is named everywhere in the dashboard. */
export const versionLabel = (m: { name: string; version: string }) => (m.version ? `${m.name} v${m.version}` : m.name);
