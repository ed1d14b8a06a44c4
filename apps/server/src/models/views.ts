/**
 * Read-only views over the ModelManager's entries: the model list (live gateway snapshot rows), Triton's
 * repository index rows, and version lookup with Triton's messages and codes. Pure functions, no state.
 */
import type { ModelEntry } from './model-load';
import type { RepositoryIndexRow, ServedModel, ServedModelInfo, VersionSlot } from './types';
import { ManagerError, messages } from './errors';

const byVersion = (a: VersionSlot, b: VersionSlot) => a.version - b.version;

export function listRows(entries: Iterable<ModelEntry>): ServedModelInfo[] {
  const rows: ServedModelInfo[] = [];
  for (const entry of [...entries].sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const base = {
      name: entry.name,
      repository: entry.scanned.repository,
      backend: entry.resolved.config?.backend ?? entry.resolved.raw.backend ?? '',
      platform: entry.resolved.config?.platform ?? entry.resolved.raw.platform ?? '',
    };
    if (entry.versions.size === 0) {
      rows.push({ ...base, version: '', state: 'UNAVAILABLE', reason: entry.resolved.error, config: { ...(entry.resolved.config ?? entry.resolved.raw) }, instances: [] });
      continue;
    }
    for (const slot of [...entry.versions.values()].sort(byVersion)) {
      const view = slot.scheduler?.snapshot();
      rows.push({
        ...base,
        version: String(slot.version),
        state: slot.state,
        ...(slot.reason ? { reason: slot.reason } : {}),
        config: { ...(slot.config ?? entry.resolved.config ?? entry.resolved.raw) },
        instances: view?.instances ?? [],
        files: slot.files,
        ...(view?.queue_depth ? { queue_depth: view.queue_depth } : {}),
      });
    }
  }
  return rows;
}

export function indexRows(known: Iterable<string>, entries: ReadonlyMap<string, ModelEntry>, readyOnly: boolean): RepositoryIndexRow[] {
  const rows: RepositoryIndexRow[] = [];
  const names = new Set([...known, ...entries.keys()]);
  for (const name of [...names].sort()) {
    const entry = entries.get(name);
    if (!entry) {
      if (!readyOnly) rows.push({ name });
      continue;
    }
    if (entry.versions.size === 0) {
      if (!readyOnly) rows.push({ name, version: '', state: 'UNAVAILABLE', ...(entry.resolved.error ? { reason: entry.resolved.error } : {}) });
      continue;
    }
    for (const slot of [...entry.versions.values()].sort(byVersion)) {
      if (readyOnly && slot.state !== 'READY') continue;
      // Triton leaves `reason` out of an index entry when there is none.
      rows.push({ name, version: String(slot.version), state: slot.state, ...(slot.reason ? { reason: slot.reason } : {}) });
    }
  }
  return rows;
}

/** The version a request addresses (undefined = highest READY), or ManagerError with Triton's words. */
export function findSlot(entries: ReadonlyMap<string, ModelEntry>, name: string, version?: number): { entry: ModelEntry; slot: VersionSlot } {
  const entry = entries.get(name);
  if (!entry) throw new ManagerError('NOT_FOUND', messages.unknownModel(name));
  if (version === undefined) {
    // on every request: a plain scan, no arrays
    let best: VersionSlot | undefined;
    for (const s of entry.versions.values()) if (s.state === 'READY' && (!best || s.version > best.version)) best = s;
    if (!best) throw new ManagerError('NOT_FOUND', messages.noAvailableVersion(name));
    return { entry, slot: best };
  }
  const slot = entry.versions.get(version);
  if (!slot) throw new ManagerError('NOT_FOUND', messages.unknownVersion(name, version));
  if (slot.state !== 'READY') throw new ManagerError('UNAVAILABLE', messages.versionNotReady(name, version));
  return { entry, slot };
}

export function servedView(entry: ModelEntry, slot: VersionSlot): ServedModel {
  return {
    name: entry.name,
    version: String(slot.version),
    state: slot.state,
    ...(slot.reason ? { reason: slot.reason } : {}),
    config: slot.config ?? entry.resolved.config ?? entry.resolved.raw,
    repository: entry.scanned.repository,
    // computed only when read (metadata): the request path builds this view on every inference
    get readyVersions() {
      return [...entry.versions.values()].filter((s) => s.state === 'READY').sort(byVersion).map((s) => String(s.version));
    },
  };
}

/** Why a (re)load brought no version up; undefined when at least one version is READY. */
export function failureOf(entry: ModelEntry): string | undefined {
  const slots = [...entry.versions.values()];
  if (slots.length === 0) return entry.resolved.error ?? 'no version to load';
  if (slots.some((s) => s.state === 'READY')) return undefined;
  return slots.map((s) => `version ${s.version} is at ${s.state} state: ${s.reason ?? ''}`).join('; ');
}

/** A version from a URL/control message (number or decimal string); undefined/'' = none given. */
export function toVersion(version: number | string | undefined): number | undefined {
  if (version === undefined || version === '') return undefined;
  const n = typeof version === 'number' ? version : Number(version);
  if (!Number.isSafeInteger(n) || n <= 0) {
    throw new ManagerError('INVALID_ARG', `invalid model version specified '${String(version)}', version should be an integral value > 0`);
  }
  return n;
}
