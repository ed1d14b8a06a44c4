/**
 * Writes a model's live config back to its config.pbtxt.
 *
 * The file is read AS IT IS NOW at save time (never the text read at load: hand edits since then are the
 * user's), the live changes are applied to that text as the smallest edits (save-plan.ts), and the
 * preview's diff is against that same current text. A file that already says what is live is not
 * written at all (no new mtime, no .bak). Otherwise the user's previous file is kept as config.pbtxt.bak
 * (never one the server wrote itself: backup.ts), and the new text replaces the file atomically (temp
 * file + fsync + rename, then fsync of the folder).
 *
 * An outside edit can land between the read and the rename (an editor, a deploy, the poll-mode workflow
 * this server supports): just before the rename the file is read again, and if it changed, the write is
 * abandoned and the save starts over from the new text, so the outside edit is kept too.
 *
 * Saves of one model are serialised by the caller (the ModelManager's per-model lock, which every save
 * path goes through: the live channel, the CLI, the dashboard), together with the live edits they write.
 */
import { InferError } from '@inferscope/core';
import { realpath } from 'node:fs/promises';
import { basename, dirname, join, sep } from 'node:path';
import { CONFIG_FILE } from '@inferscope/core/repository';
import type { SharedConfigFile as SharedFile } from '@inferscope/core';
import { scanModelFolder } from '../../repository/scan';
import { READ_LIMITS, readRegularFileStat } from '../../repository/safe-read';
import type { ModelEntry } from '../types';
import type { ConfigEngine } from '../runtime';
import type { VersionSlot } from '../types';
import { lineDiff } from './line-diff';
import { cleanConfigTemps, writeFileAtomic } from './atomic-file';
import { backUp, recordWritten } from './backup';
import { pick, planSave, type SavePlan } from './save-plan';

export interface SaveResult {
  path: string;
  text: string;
  /** unified-style line diff against the file as it is on disk now ('' when nothing changes) */
  diff: string;
  /** false: the file already held the live values, or a dry run: nothing was written (no .bak either) */
  written: boolean;
  /**
   * Where the user's previous file is: the .bak this save wrote, or (backupKept) the one an earlier save
   * wrote, kept because the file this save replaced was the server's own output. null for a dry run,
   * when nothing was written, or when there was no file.
   */
  backup: string | null;
  backupKept: boolean;
  /** dotted paths written (live changes the file did not hold yet) */
  changed: string[];
  /** what the user should know (the file was edited since load, a hand-set value overwritten) */
  notes: string[];
  /**
   * One config.pbtxt governs every version of a model (Triton has no per-version config): the versions it
   * serves, and for each other loaded version the written fields whose live value differs from what is
   * written — what that version will run after a reload or restart.
   */
  versions: SharedFile;
}

/** Times a save starts over because the file changed under it, before it gives up and says so. */
const MAX_TRIES = 3;

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

/** Thrown by the pre-rename check: the file is no longer what the save read. */
class ChangedOnDisk extends Error {}

export interface SaveSeams {
  /** runs between reading the file and writing it (tests land an outside edit in that window) */
  afterRead?: () => Promise<void>;
}

export async function saveModelConfig(entry: ModelEntry, slot: VersionSlot, engine: ConfigEngine, dryRun: boolean, seams: SaveSeams = {}): Promise<SaveResult> {
  const path = entry.scanned.configPath ?? join(entry.scanned.dir, CONFIG_FILE);
  for (let attempt = 1; ; attempt++) {
    const target = await writeTarget(path, entry.scanned.repository);
    const current = target.current?.toString('utf8');
    const plan = planSave({
      model: entry.name, current, loadedText: entry.scanned.configText, loadedRaw: entry.resolved.raw,
      loadedConfig: entry.resolved.config, live: slot.config!, changed: [...slot.changedPaths],
    }, engine);
    const diff = lineDiff(current ?? '', plan.text, `${CONFIG_FILE} (on disk)`, `${CONFIG_FILE} (live)`);
    const result = { path, text: plan.text, diff, written: false, backup: null, backupKept: false, changed: plan.pending, notes: plan.notes, versions: sharedFile(entry, slot, plan.pending) };
    if (dryRun) return result;
    if (plan.pending.length === 0) {
      // The file already holds every live value: nothing to write, and nothing left unsaved.
      slot.changedPaths.clear();
      return result;
    }
    await cleanConfigTemps(dirname(target.path));
    await seams.afterRead?.();
    try {
      const backup = await backUp(target.path, target.current, target.mode);
      await recordWritten(target.path, plan.text, target.mode);
      await writeFileAtomic(target.path, plan.text, target.mode, () => unchangedSince(target));
      await settle(entry, slot, current, plan);
      return { ...result, written: true, backup: backup.path, backupKept: backup.kept };
    } catch (err) {
      if (!(err instanceof ChangedOnDisk)) throw err;
      if (attempt >= MAX_TRIES) {
        throw new InferError('UNAVAILABLE', `${CONFIG_FILE} of '${entry.name}' changed on disk during each of ${MAX_TRIES} tries to save; it was not written (its edits are kept): save again once it settles`);
      }
    }
  }
}

/** The pre-rename check: the file must still be exactly the bytes the plan was made from. */
async function unchangedSince(target: Target): Promise<void> {
  const now = await readCurrent(target.path);
  const same = now === undefined || target.current === undefined ? now === target.current : now.equals(target.current);
  if (!same) throw new ChangedOnDisk();
}

/**
 * After a write. When the file was what the model loaded, it now says exactly what is live: the model is
 * remembered as loaded from it, so a poll does not reload it. When it had been edited since load, those
 * edits are not live yet: the old view stays, so a poll (poll mode) sees the file changed and loads them.
 * Likewise when an outside edit landed right after the rename.
 */
async function settle(entry: ModelEntry, slot: VersionSlot, before: string | undefined, plan: SavePlan): Promise<void> {
  const rescanned = await scanModelFolder(entry.scanned.repository, entry.name);
  if (rescanned.configText === plan.text && before === entry.scanned.configText) entry.scanned = rescanned;
  // The config as written now; its instance groups are the ones the live indexes name (save-plan checks).
  entry.resolved = { ...entry.resolved, raw: plan.edited };
  slot.changedPaths.clear();
}

interface Target {
  /** the real path written */
  path: string;
  /** the bytes there now; undefined when there is no file yet */
  current?: Buffer;
  mode: number;
}

/** The file's bytes now, read without following a link and within the config cap; undefined when absent. */
async function readCurrent(path: string): Promise<Buffer | undefined> {
  try {
    return (await readRegularFileStat(path, READ_LIMITS.config, { followLinks: false })).data;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new InferError('INVALID_ARG', `refusing to save: ${(err as Error).message}`);
  }
}

/**
 * Where a save may write: the config file's real path, which must lie inside the repository's real path
 * (a config.pbtxt swapped for a link to a file elsewhere is refused, not written through), and must be a
 * regular file, read without following a link and within the config cap (a link to /dev/zero is refused).
 * Returns the real path, the current bytes (undefined when there is no file yet) and the mode to keep.
 */
async function writeTarget(path: string, repository: string): Promise<Target> {
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
