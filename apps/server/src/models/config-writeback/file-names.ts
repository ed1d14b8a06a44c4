/**
 * The files a config save writes beside the config file it saves (config.pbtxt, or the file a linked
 * config.pbtxt resolves to), named after it.
 */
import { basename, dirname, join } from 'node:path';

/** The user's previous file (never a file the server wrote: see backup.ts). */
export function backupOf(configPath: string): string {
  return `${configPath}.bak`;
}

/**
 * What the server last wrote to the config file (its sha256), so a later save can tell the server's own
 * output from the user's file. Dot-prefixed: repository scans skip it and it is not a version folder.
 */
export function writtenRecordOf(configPath: string): string {
  return join(dirname(configPath), `.${basename(configPath)}.written`);
}
