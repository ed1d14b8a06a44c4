/**
 * Writes a model's live config back to its config.pbtxt.
 *
 * Only what was changed live is carried into the config as written (the user's file stays theirs: no
 * flood of normalised defaults). The changed fields are edited in the file's own text where possible
 * (comments and layout survive), else the config engine's printer writes the whole file. Either text is
 * checked before writing: it must parse back to exactly the edited config, and every changed field must
 * normalise to the live value. The write is atomic (temp file + fsync + rename, then fsync of the folder) and the
 * previous file is kept as config.pbtxt.bak, written the same atomic way.
 */
import { InferError } from '@inferscope/core';
import { realpath } from 'node:fs/promises';
import { basename, dirname, join, sep } from 'node:path';
import { CONFIG_FILE } from '@inferscope/core/repository';
import type { ModelConfig } from '@inferscope/core/config';
import type { SharedConfigFile as SharedFile } from '@inferscope/core';
import { parseLivePath, readLivePath } from '@inferscope/core/live-config';
import { scanModelFolder } from '../repository/scan';
import { READ_LIMITS, readRegularFileStat } from '../repository/safe-read';
import type { ModelEntry } from '../models/types';
import type { ConfigEngine } from '../models/runtime';
import type { VersionSlot } from '../models/types';
import { carryChangesToRaw } from '../models/live-config';
import { lineDiff } from './line-diff';
import { editConfigText } from './text-edit';
import { cleanConfigTemps, writeFileAtomic } from './atomic-file';

export interface SaveResult {
  path: string;
  text: string;
  /** unified-style line diff against the current file ('' when nothing changes) */
  diff: string;
  /** path of the backup of the previous file; null for a dry run or when there was no file */
  backup: string | null;
  /** dotted paths written */
  changed: string[];
  /**
   * One config.pbtxt governs every version of a model (Triton has no per-version config): the versions it
   * serves, and for each other loaded version the written fields whose live value differs from what is
   * written — what that version will run after a reload or restart.
   */
  versions: SharedFile;
}

/** Which versions share the file, and where another version's live values differ from the written ones. */
function sharedFile(entry: ModelEntry, slot: VersionSlot, changed: readonly string[]): SharedFile {
  const others = [...entry.versions.values()].filter((s) => s.config !== undefined).sort((a, b) => a.version - b.version);
  const differences: SharedFile['differences'] = [];
  for (const other of others) {
    if (other === slot) continue;
    for (const path of changed) {
      const written = pick(slot.config, path);
      const live = pick(other.config, path);
      if (JSON.stringify(live) !== JSON.stringify(written)) differences.push({ version: String(other.version), path, live, written });
    }
  }
  return { saved: String(slot.version), governs: others.map((s) => String(s.version)), differences };
}

/** The live value at a changed path (the paths are the live-config module's: one parser for them all). */
function pick(config: ModelConfig | undefined, path: string): unknown {
  const p = parseLivePath(path);
  // `dynamic_batching` itself only says a patch created the message; its fields are paths of their own.
  return p === undefined || p.kind === 'dynamic_batching' ? undefined : readLivePath(config, p);
}

export async function saveModelConfig(entry: ModelEntry, slot: VersionSlot, engine: ConfigEngine, dryRun: boolean): Promise<SaveResult> {
  const path = entry.scanned.configPath ?? join(entry.scanned.dir, CONFIG_FILE);
  const changed = [...slot.changedPaths];
  const edited = carryChangesToRaw(entry.resolved.raw, slot.config!, changed);
  // Prefer editing the file's own text (keeps comments and layout); print the whole config otherwise.
  const original = entry.scanned.configText;
  const inPlace = original === undefined ? undefined : editConfigText(original, changed.map((p) => ({ path: p, value: pick(slot.config, p) })));
  let text = inPlace ?? engine.print(edited);
  let problem = checkReadsBack(text, edited, entry.name, slot.config, changed, engine);
  if (problem && inPlace !== undefined) {
    text = engine.print(edited);
    problem = checkReadsBack(text, edited, entry.name, slot.config, changed, engine);
  }
  if (problem) throw new InferError('INTERNAL', `refusing to save: ${problem}`);

  const target = await writeTarget(path, entry.scanned.repository);
  const current = entry.scanned.configText ?? target.current?.toString('utf8') ?? '';
  const diff = lineDiff(current, text, `${CONFIG_FILE} (on disk)`, `${CONFIG_FILE} (live)`);
  const versions = sharedFile(entry, slot, changed);
  if (dryRun) return { path, text, diff, backup: null, changed, versions };

  const backup = target.current ? `${target.path}.bak` : null;
  await cleanConfigTemps(dirname(target.path));
  // The backup is replaced atomically too: a kill mid-save must not leave a torn .bak either. It keeps
  // the original's mode (a 0600 config must not get a world-readable copy).
  if (backup) await writeFileAtomic(backup, target.current!, target.mode);
  await writeFileAtomic(target.path, text, target.mode);

  // The file now matches the live config: remember it as loaded, so a poll does not reload the model.
  entry.scanned = await scanModelFolder(entry.scanned.repository, entry.name);
  entry.resolved = { ...entry.resolved, raw: edited };
  slot.changedPaths.clear();
  return { path, text, diff, backup, changed, versions };
}

/**
 * Where a save may write: the config file's real path, which must lie inside the repository's real path
 * (a config.pbtxt swapped for a link to a file elsewhere is refused, not written through), and must be a
 * regular file, read without following a link and within the config cap (a link to /dev/zero is refused).
 * Returns the real path, the current bytes (undefined when there is no file yet) and the mode to keep.
 */
async function writeTarget(path: string, repository: string): Promise<{ path: string; current?: Buffer; mode: number }> {
  const repo = await realpath(repository);
  const inside = (p: string) => p.startsWith(repo + sep);
  let real: string;
  try {
    real = await realpath(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new InferError('INVALID_ARG', `refusing to save: cannot resolve '${path}': ${(err as Error).message}`);
    // no config.pbtxt yet (auto-completed model): it is created in the model folder, which must be inside
    const folder = await realpath(dirname(path));
    if (!inside(folder)) throw new InferError('INVALID_ARG', `refusing to save: '${path}' is outside the model repository`);
    return { path: join(folder, basename(path)), mode: 0o644 };
  }
  if (!inside(real)) throw new InferError('INVALID_ARG', `refusing to save: '${path}' resolves to a file outside the model repository`);
  try {
    const { data, stats } = await readRegularFileStat(real, READ_LIMITS.config, { followLinks: false });
    return { path: real, current: data, mode: stats.mode & 0o7777 };
  } catch (err) {
    throw new InferError('INVALID_ARG', `refusing to save: ${(err as Error).message}`);
  }
}

/** The check that makes saving safe: what we write reads back as what is live. Returns the problem, if any. */
function checkReadsBack(text: string, edited: ModelConfig, model: string, live: ModelConfig | undefined, changed: string[], engine: ConfigEngine): string | undefined {
  let reparsed: ModelConfig;
  try {
    reparsed = engine.parse(text);
  } catch (err) {
    return `the new config text does not parse back (${(err as Error).message})`;
  }
  if (JSON.stringify(sortKeys(reparsed)) !== JSON.stringify(sortKeys(edited))) return 'the new config text does not parse back to the live config';
  const normalised = engine.normalize(reparsed, { modelName: model, gpuCount: 0 });
  for (const p of changed) {
    if (JSON.stringify(pick(normalised, p)) !== JSON.stringify(pick(live, p))) {
      return `'${p}' would read back as ${JSON.stringify(pick(normalised, p))}, live is ${JSON.stringify(pick(live, p))}`;
    }
  }
  return undefined;
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object') {
    return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]));
  }
  return v;
}
