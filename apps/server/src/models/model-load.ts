/**
 * Loading one model from its scanned folder, first time or again (reload). New versions load before old
 * ones drain: no downtime on reload. A reload that brings no version up keeps the old versions serving
 * (their folders still exist), as Triton does, and says why in their reason.
 */
import type { ScannedModel } from '../repository/scan';
import { resolveModel, type ResolvedModel } from './config-loader';
import { loadVersions, drainVersions, type VersionHost } from './version-loader';
import type { VersionSlot } from './types';
import { failureOf } from './views';

import type { ModelEntry } from './types';

/**
 * Loads `scanned` in place of `previous` (undefined on a first load). `publish` makes an entry the one
 * the manager serves: a first load is published right away (its LOADING rows show), a reload only once
 * it has come up, or never when the previous load keeps serving. Returns the failure, if any.
 */
export async function loadModel(
  host: VersionHost,
  previous: ModelEntry | undefined,
  scanned: ScannedModel,
  publish: (entry: ModelEntry) => void,
): Promise<string | undefined> {
  const resolved = await resolveModel(scanned, host.options.runtime, host.options.gpuCount);
  const entry: ModelEntry = {
    name: scanned.name,
    scanned,
    resolved,
    maxBatchLimit: resolved.config?.max_batch_size ?? 0,
    versions: new Map(),
  };
  if (!previous) publish(entry);
  await loadVersions(host, entry);
  const failure = failureOf(entry);
  const oldServing = previous
    ? [...previous.versions.values()].filter((s) => s.state === 'READY' && scanned.versions.some((v) => v.version === s.version))
    : [];
  if (previous && failure && oldServing.length > 0 && ![...entry.versions.values()].some((s) => s.state === 'READY')) {
    for (const slot of entry.versions.values()) if (slot.scheduler || slot.loaded) await drainVersions(host, entry.name, [slot], 'reload failed');
    for (const slot of oldServing) host.setState(entry.name, slot, 'READY', `reload failed, still serving the previous load: ${failure}`);
    return failure;
  }
  publish(entry);
  if (previous) await drainVersions(host, previous.name, [...previous.versions.values()], 'replaced by a new load');
  return failure;
}
