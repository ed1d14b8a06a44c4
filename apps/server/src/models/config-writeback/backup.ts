/**
 * The backup a config save keeps: config.pbtxt.bak holds the user's own file, never one the server wrote.
 *
 * Before this, every save copied the file it replaced to .bak: a second save (a double click, a second
 * dashboard) copied the first save's output there, and the original was gone. Now the server records
 * the sha256 of each text it writes (file-names.ts); a file that still matches it is the server's own
 * output, and an existing .bak is kept rather than replaced by it. A file that does not match (the
 * original, or one edited by hand since the last save) is the user's and becomes the .bak. The record
 * lives on disk, so this holds across restarts of the server.
 */
import { createHash } from 'node:crypto';
import { lstat } from 'node:fs/promises';
import { readRegularFile } from '../../repository/safe-read';
import { writeFileAtomic } from './atomic-file';
import { backupOf, writtenRecordOf } from './file-names';

export interface Backup {
  /** where the user's previous file is; null when there was no file to back up */
  path: string | null;
  /** true: an earlier save's .bak was kept (the file this save replaces is the server's own output) */
  kept: boolean;
}

function digest(data: string | Uint8Array): string {
  return `sha256:${createHash('sha256').update(data).digest('hex')}`;
}

/** Whether `current` (the bytes of config.pbtxt now) is the text the server last wrote there. */
async function serverWrote(configPath: string, current: Buffer): Promise<boolean> {
  try {
    const record = await readRegularFile(writtenRecordOf(configPath), 1024, { followLinks: false });
    return record.toString('utf8').trim() === digest(current);
  } catch {
    return false; // no record (never saved here, or removed): the file is treated as the user's
  }
}

async function exists(path: string): Promise<boolean> {
  return lstat(path).then(() => true, () => false);
}

/**
 * Keeps the user's file before a save replaces it: writes `current` to .bak (atomically, with the
 * config's mode: a 0600 config must not get a world-readable copy) unless `current` is the server's own
 * output and a .bak already holds what came before it.
 */
export async function backUp(configPath: string, current: Buffer | undefined, mode: number): Promise<Backup> {
  if (current === undefined) return { path: null, kept: false };
  const bak = backupOf(configPath);
  if ((await serverWrote(configPath, current)) && (await exists(bak))) return { path: bak, kept: true };
  await writeFileAtomic(bak, current, mode);
  return { path: bak, kept: false };
}

/**
 * Records `text` as what the server writes to config.pbtxt. Called BEFORE the config's rename: a kill
 * between the two leaves a record that matches no file on disk, so the file there is (rightly) still
 * treated as the user's; the other order could leave the server's output looking like the user's.
 */
export function recordWritten(configPath: string, text: string, mode: number): Promise<void> {
  return writeFileAtomic(writtenRecordOf(configPath), `${digest(text)}\n`, mode);
}
