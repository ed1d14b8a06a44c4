/**
 * Crash-safe file replacement for config write-back: the new bytes go to a temp file in the same folder,
 * are fsynced, then renamed over the target (atomic on POSIX), then the folder is fsynced so the rename
 * itself survives a power cut. A reader sees the old file or the new one, never a torn one.
 *
 * A process killed between creating the temp file and the rename leaves the temp file behind. Its name
 * carries the writer's pid, so a later writer can tell a leftover (its writer is gone) from a write still
 * in progress in another live process, and removes only the leftovers, and only names of our own pattern.
 *
 * The folder may hold files planted by someone else (a shared repository): the temp name ends in random
 * bytes (nothing to predict and plant a link at), and it is created exclusively without following links
 * (O_CREAT|O_EXCL|O_NOFOLLOW): an existing name, link or not, fails the open instead of being written
 * through. rename() replaces a link at the target itself, never what it points to.
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { open, readdir, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { CONFIG_FILE } from '@inferscope/core/repository';
import { processAlive } from '../../child-process/process-alive';
import { backupOf, writtenRecordOf } from './file-names';

/** `.<file>.tmp-<pid>-<ms>-<n or random hex>`: dot-prefixed so repository scans skip it. */
const TEMP_NAME = /^\.(.+)\.tmp-(\d+)-(\d+)-([0-9a-f]+)$/;
/** Our own earlier pattern (before the counter was added); leftovers of it are cleaned too. */
const OLD_TEMP_NAME = /^\.(.+)\.tmp-(\d+)-(\d+)$/;

/** temp files this process is writing right now (never removed by a concurrent clean-up) */
const inFlight = new Set<string>();

/** The pid stays in the name (stale clean-up needs it); the random tail makes it unpredictable. */
export function tempNameFor(file: string): string {
  return join(dirname(file), `.${basename(file)}.tmp-${process.pid}-${Date.now()}-${randomBytes(8).toString('hex')}`);
}

const EXCLUSIVE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/**
 * Writes `data` to `file` atomically (temp + fsync + rename + fsync of the folder). `beforeRename` runs
 * once the new bytes are durable, just before they replace the file: it may throw to abandon the write
 * (the temp file is removed and `file` is left as it is), so a caller can check nothing changed `file`
 * meanwhile in the smallest window there is.
 */
export async function writeFileAtomic(
  file: string, data: string | Uint8Array, mode = 0o644, beforeRename?: () => Promise<void>,
): Promise<void> {
  const tmp = tempNameFor(file);
  inFlight.add(tmp);
  let created = false;
  try {
    const fh = await open(tmp, EXCLUSIVE, mode);
    created = true;
    try {
      // the umask must not change the mode we were asked for (a .bak keeps the original's mode)
      await fh.chmod(mode);
      await fh.writeFile(data);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await beforeRename?.();
    await rename(tmp, file);
  } catch (err) {
    // only a file we created is ours to remove (an EEXIST means someone else's file sits at the name)
    if (created) await unlink(tmp).catch(() => undefined);
    throw err;
  } finally {
    inFlight.delete(tmp);
  }
  await syncFolder(dirname(file));
}

export async function syncFolder(dir: string): Promise<void> {
  const dh = await open(dir, 'r');
  try {
    await dh.sync();
  } catch {
    // Some filesystems refuse fsync on a directory; the rename is still atomic.
  } finally {
    await dh.close();
  }
}

/**
 * Removes temp files of ours for the given target names (e.g. ['config.pbtxt', 'config.pbtxt.bak']) that
 * were left in `dir` by writers that no longer run. Files of a live writer, other names and anything not
 * matching our pattern are left alone. Returns the names removed; never throws (a clean-up must not fail
 * the save or the scan that calls it).
 */
export async function removeStaleTemps(dir: string, targets: readonly string[]): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const m = TEMP_NAME.exec(name) ?? OLD_TEMP_NAME.exec(name);
    if (!m || !targets.includes(m[1])) continue;
    const full = join(dir, name);
    const pid = Number(m[2]);
    if (inFlight.has(full)) continue;
    if (pid !== process.pid && processAlive(pid)) continue;
    try {
      await unlink(full);
      removed.push(name);
    } catch {
      // already gone (another clean-up) or not ours to remove
    }
  }
  return removed;
}

/**
 * Removes temp files that an earlier config save left in a model folder when it was killed before its
 * rename (`.config.pbtxt.tmp-*`, `.config.pbtxt.bak.tmp-*`, `..config.pbtxt.written.tmp-*` of writers that no longer run). Called before
 * each save and each time the manager (re)loads the model.
 */
export function cleanConfigTemps(modelDir: string): Promise<string[]> {
  return removeStaleTemps(modelDir, [CONFIG_FILE, backupOf(CONFIG_FILE), writtenRecordOf(CONFIG_FILE)]);
}
