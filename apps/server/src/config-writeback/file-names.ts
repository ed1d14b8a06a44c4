/** The files a config save writes in a model folder besides config.pbtxt itself. */
import { CONFIG_FILE } from '@inferscope/core/repository';

/** The user's previous config.pbtxt (never a file the server wrote: see backup.ts). */
export const BACKUP_FILE = `${CONFIG_FILE}.bak`;

/**
 * What the server last wrote to config.pbtxt (its sha256), so a later save can tell the server's own
 * output from the user's file. Dot-prefixed: repository scans skip it and it is not a version folder.
 */
export const WRITTEN_RECORD = `.${CONFIG_FILE}.written`;
