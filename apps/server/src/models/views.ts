/**
 * Read-only views over the ModelManager's entries: the model list (live gateway snapshot rows), Triton's
 * repository index rows, and version lookup with Triton's messages and codes. Pure functions, no state.
 */
import { InferError, errors } from '@inferscope/core';
import type { ModelEntry } from './types';
import type { RepositoryIndexRow, ServedModel, ServedModelInfo, VersionSlot } from './types';

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
        ...(view?.payloads ? { payloads: view.payloads } : {}),
        ...(view?.kv_blocks ? { kv_blocks: view.kv_blocks } : {}),
        ...(view?.sequence ? { sequence: view.sequence } : {}),
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

/** The version a request addresses (undefined = highest READY), or InferError with Triton's words. */
/** The version a request that names none is served by: the highest READY one (Triton). */
export function highestReady(entry: ModelEntry): VersionSlot | undefined {
  // on every request: a plain scan, no arrays
  let best: VersionSlot | undefined;
  for (const s of entry.versions.values()) if (s.state === 'READY' && (!best || s.version > best.version)) best = s;
  return best;
}

export function findSlot(entries: ReadonlyMap<string, ModelEntry>, name: string, version?: number): { entry: ModelEntry; slot: VersionSlot } {
  const entry = entries.get(name);
  if (!entry) throw errors.UNKNOWN_MODEL(name);
  if (version === undefined) {
    const best = highestReady(entry);
    if (!best) throw errors.NO_AVAILABLE_VERSION(name);
    return { entry, slot: best };
  }
  const slot = entry.versions.get(version);
  if (!slot) throw errors.UNKNOWN_VERSION(name, version);
  if (slot.state !== 'READY') throw errors.VERSION_NOT_READY(name, version);
  return { entry, slot };
}

/**
 * A served version as the request path sees it. A class, not an object literal with a getter: this is
 * built on every inference, and an accessor defined per object costs V8 a map transition each time
 * (~1 µs a request in the HTTP profile); the prototype's getter costs nothing until metadata reads it.
 */
class ServedVersionView implements ServedModel {
  readonly name: string;
  readonly version: string;
  readonly state: ServedModel['state'];
  /** an own field on every view (undefined when there is none: one object shape on the request path; JSON drops it) */
  readonly reason?: string;
  readonly config: ServedModel['config'];
  readonly repository: string;
  // #private: not an own enumerable field, so the view serialises as the plain row it was
  readonly #entry: ModelEntry;

  constructor(entry: ModelEntry, slot: VersionSlot) {
    this.#entry = entry;
    this.name = entry.name;
    this.version = String(slot.version);
    this.state = slot.state;
    if (slot.reason) this.reason = slot.reason;
    this.config = slot.config ?? entry.resolved.config ?? entry.resolved.raw;
    this.repository = entry.scanned.repository;
  }

  get readyVersions(): string[] {
    return [...this.#entry.versions.values()].filter((s) => s.state === 'READY').sort(byVersion).map((s) => String(s.version));
  }
}

export function servedView(entry: ModelEntry, slot: VersionSlot): ServedModel {
  return new ServedVersionView(entry, slot);
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
    throw new InferError('INVALID_ARG', `invalid model version specified '${String(version)}', version should be an integral value > 0`);
  }
  return n;
}
