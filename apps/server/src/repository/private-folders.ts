/**
 * The private temporary folders a repository load with `file:` contents is served from, owned by one
 * server. Their lifetime is the server's, whatever way it ends:
 * - unloading the model (or loading it again) removes its folder;
 * - `close()` (server close, and so SIGINT/SIGTERM in `serve`) removes every folder it still holds;
 * - a process that exits without closing (`process.exit`, a second Ctrl-C) removes them in an `exit` hook;
 * - a process that cannot run anything (SIGKILL, a crash) leaves them behind: each folder's name carries
 *   its owner's pid (`inferscope-load-<pid>-XXXXXX`), and the next server to start removes the folders
 *   whose pid is no longer alive. A folder of a live process (another server, or another server in this
 *   same process) is never touched. A dead pid that the system has already reused for an unrelated process
 *   only delays the removal (the safe side).
 */
import { rmSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { processAlive } from '../child-process/process-alive';

const PREFIX = 'inferscope-load-';
const OWNED = /^inferscope-load-(\d+)-[A-Za-z0-9]{6}$/;

/** Every store with folders, for the process `exit` hook (one hook for all servers of the process). */
const live = new Set<PrivateFolders>();
let exitHook = false;

export class PrivateFolders {
  /** model -> the folder it is served from */
  private readonly byModel = new Map<string, string>();
  /** every folder this store made and has not removed yet, attached or still being written */
  private readonly owned = new Set<string>();

  constructor(private readonly root: string = tmpdir()) {
    if (!exitHook) {
      exitHook = true;
      process.on('exit', () => {
        for (const store of live) store.removeAllNow();
      });
    }
  }

  /** A fresh empty folder (mode 0700) owned by this process; not yet attached to a model. */
  async create(): Promise<string> {
    live.add(this);
    const folder = await mkdtemp(join(this.root, `${PREFIX}${process.pid}-`));
    this.owned.add(folder);
    return folder;
  }

  /** Removes a folder that never served a model (its load failed). */
  async discard(folder: string): Promise<void> {
    this.owned.delete(folder);
    await rm(folder, { recursive: true, force: true });
  }

  /** `model` is now served from `folder`; its previous folder (if another) is removed. */
  async attach(model: string, folder: string): Promise<void> {
    const previous = this.byModel.get(model);
    this.byModel.set(model, folder);
    if (previous && previous !== folder) await this.discard(previous);
  }

  /** `model` no longer uses a private folder (unloaded, or loaded from the repository again). */
  async release(model: string): Promise<void> {
    const folder = this.byModel.get(model);
    if (folder === undefined) return;
    this.byModel.delete(model);
    await this.discard(folder);
  }

  /** Removes every folder this store holds (server close). */
  async removeAll(): Promise<void> {
    const folders = [...this.owned];
    this.byModel.clear();
    this.owned.clear();
    live.delete(this);
    await Promise.all(folders.map((f) => rm(f, { recursive: true, force: true })));
  }

  private removeAllNow(): void {
    for (const folder of this.owned) rmSync(folder, { recursive: true, force: true });
    this.owned.clear();
    this.byModel.clear();
  }
}

/**
 * Removes the load folders left by dead servers (SIGKILL, crash) under `root`; returns their names.
 * Folders without an owner pid in their name are not ours to judge and stay.
 */
export async function removeStaleFolders(
  root: string = tmpdir(),
  alive: (pid: number) => boolean = processAlive,
  /** the folder names judged, the owner's pid in group 1 (the fleet supervisor's temp folders use it too) */
  owned: RegExp = OWNED,
): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(root);
  } catch {
    return [];
  }
  const stale = names.filter((n) => {
    const m = owned.exec(n);
    return m !== null && !alive(Number(m[1]));
  });
  await Promise.all(stale.map((n) => rm(join(root, n), { recursive: true, force: true })));
  return stale;
}
