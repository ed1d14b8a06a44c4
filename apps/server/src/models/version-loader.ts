/**
 * Bringing model versions up (backend load -> scheduler -> start instances) and down (drain the scheduler
 * so every accepted request is answered, then unload the backend). Failures become the version's
 * UNAVAILABLE reason; the other versions and models are not affected.
 */
import { join } from 'node:path';
import type { ModelState } from '@inferscope/core';
import type { ModelEntry } from './types';
import type { ModelRuntime } from './runtime';
import type { VersionSlot } from './types';
import { versionOf } from './config-loader';
import { schedulerKindFor } from '@inferscope/core/scheduler';
import { isolateFailures } from '../backends/isolate-failures';
import { readOnnxSignature } from '../backends/index';
import { generativeModelOf } from '../generate/generative-model';

/** The part of the manager these helpers use (keeps the dependency one-way and testable). */
export interface VersionHost {
  readonly options: { runtime: ModelRuntime; gpuCount: number; bus: import('@inferscope/core').EventBus };
  setState(model: string, slot: VersionSlot | undefined, state: ModelState, reason?: string): void;
  readonly log: (msg: string) => void;
  /** ensemble versions have no backend: the ensembles module brings them up (apps/server/src/ensemble) */
  readonly ensembles: { load(model: string, slot: VersionSlot): Promise<void> };
}

export async function loadVersions(host: VersionHost, entry: ModelEntry): Promise<void> {
  const { resolved, scanned } = entry;
  const selected = resolved.selection?.versions ?? [];
  for (const warning of resolved.selection?.warnings ?? []) host.log(warning);
  if (resolved.error || !resolved.config) {
    if (selected.length === 0) {
      host.setState(entry.name, undefined, 'UNAVAILABLE', resolved.error);
      return;
    }
    for (const v of selected) {
      const slot = newSlot(entry, v);
      entry.versions.set(v, slot);
      host.setState(entry.name, slot, 'UNAVAILABLE', resolved.error);
    }
    return;
  }
  const slots = selected.map((v) => newSlot(entry, v));
  for (const slot of slots) {
    entry.versions.set(slot.version, slot);
    host.setState(entry.name, slot, 'LOADING');
  }
  // One version at a time: loading spawns worker threads and sessions, and the host has few cores.
  for (const slot of slots) await loadOne(host, entry, slot);
}

function newSlot(entry: ModelEntry, version: number): VersionSlot {
  const files = (versionOf(entry.scanned, version)?.files ?? []).map((f) => ({ path: f.path, bytes: f.bytes }));
  return { version, state: 'LOADING', config: entry.resolved.config, files, changedPaths: new Set() };
}

async function loadOne(host: VersionHost, entry: ModelEntry, slot: VersionSlot): Promise<void> {
  const { runtime, gpuCount, bus } = host.options;
  const config = slot.config!;
  if (schedulerKindFor(config) === 'ensemble') return loadEnsemble(host, entry, slot);
  const dir = versionOf(entry.scanned, slot.version)!.dir;
  const filename = entry.resolved.modelFilename;
  if (!filename || !slot.files.some((f) => f.path === filename || f.path.startsWith(filename + '/'))) {
    host.setState(entry.name, slot, 'UNAVAILABLE', `unable to find '${join(dir, filename ?? 'model file')}' for model '${entry.name}' version ${slot.version}`);
    return;
  }
  const version = String(slot.version);
  try {
    // An iterative model: its backend instance gets the file's step signature, its scheduler the config (generate/generative-model.ts).
    const generative = schedulerKindFor(config) === 'iterative' ? generativeModelOf(readOnnxSignature(join(dir, filename)), config) : undefined;
    const loaded = await runtime.backends.load({
      model: entry.name,
      version,
      versionDir: dir,
      modelFile: join(dir, filename),
      config: generative?.instanceConfig ?? config,
      gpuCount,
      log: (msg) => host.log(`${entry.name}:${version} ${msg}`),
      notesChanged: () => {
        if (slot.loaded && slot.state === 'READY') host.setState(entry.name, slot, 'READY', slot.loaded.notes.join('; ') || undefined);
      },
    });
    slot.loaded = loaded;
    // A failed batch is split and re-run so one bad request fails alone, with its own error (isolate-failures.ts).
    const scheduler = runtime.createScheduler({ model: entry.name, version, config, bus, executor: isolateFailures(loaded.executor), generative });
    slot.scheduler = scheduler;
    await scheduler.start();
    // READY carries the backend's notes (e.g. "CUDA execution provider unavailable ...; running on CPU").
    host.setState(entry.name, slot, 'READY', loaded.notes.length > 0 ? loaded.notes.join('; ') : undefined);
  } catch (err) {
    const reason = (err as Error).message ?? String(err);
    await teardown(slot).catch(() => {});
    host.setState(entry.name, slot, 'UNAVAILABLE', reason);
  }
}

async function loadEnsemble(host: VersionHost, entry: ModelEntry, slot: VersionSlot): Promise<void> {
  try {
    await host.ensembles.load(entry.name, slot);
  } catch (err) {
    await teardown(slot).catch(() => {});
    host.setState(entry.name, slot, 'UNAVAILABLE', (err as Error).message ?? String(err));
  }
}

async function teardown(slot: VersionSlot): Promise<void> {
  const { scheduler, loaded } = slot;
  slot.scheduler = undefined;
  slot.loaded = undefined;
  try {
    if (scheduler) await scheduler.stop();
  } finally {
    if (loaded) await loaded.unload();
  }
}

/** UNLOADING -> drain -> unload -> UNAVAILABLE(reason). Slots that never loaded just get the new reason. */
export async function drainVersions(host: VersionHost, model: string, slots: VersionSlot[], reason: string): Promise<void> {
  await Promise.all(
    slots.map(async (slot) => {
      if (!slot.scheduler && !slot.loaded) {
        if (slot.state !== 'UNAVAILABLE' || slot.reason !== reason) host.setState(model, slot, 'UNAVAILABLE', reason);
        return;
      }
      host.setState(model, slot, 'UNLOADING');
      try {
        await teardown(slot);
        host.setState(model, slot, 'UNAVAILABLE', reason);
      } catch (err) {
        host.setState(model, slot, 'UNAVAILABLE', `${reason}; unload failed: ${(err as Error).message}`);
      }
    }),
  );
}
