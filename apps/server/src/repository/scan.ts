/**
 * Reads model repositories from disk into plain records. All layout decisions are core's
 * (packages/core/src/repository); this file only lists folders, reads config.pbtxt and stats files.
 *
 * A scan never throws for one bad model: an unreadable folder becomes a record with `error`, so that model
 * is UNAVAILABLE with a reason while the others serve.
 */
import { readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import {
  CONFIG_FILE,
  DUPLICATE_MODEL_REASON,
  checkModelName,
  describeModelFolder,
  findDuplicateModels,
  modelFoldersOf,
  type ListingEntry,
} from '@inferscope/core/repository';
import { READ_LIMITS, readRegularText } from './safe-read';

export interface ScannedFile {
  /** relative to the version folder, '/'-separated */
  path: string;
  bytes: number;
  mtimeMs: number;
}

export interface ScannedVersion {
  version: number;
  dir: string;
  files: ScannedFile[];
}

export interface ScannedModel {
  name: string;
  repository: string;
  dir: string;
  /** text of config.pbtxt; undefined when the model has none (auto-complete may fill it) */
  configText?: string;
  configPath?: string;
  versions: ScannedVersion[];
  ignored: { name: string; why: string }[];
  /** a reason that makes the whole model UNAVAILABLE before any config is read (duplicate, unreadable) */
  error?: string;
  /** changes whenever config.pbtxt or a version file changes (size, mtime) or appears/disappears */
  fingerprint: string;
}

export interface RepositoryScan {
  repositories: string[];
  models: Map<string, ScannedModel>;
  /** repository paths that could not be listed, with the error (the server still starts) */
  unreadable: { repository: string; error: string }[];
}

async function listing(dir: string): Promise<ListingEntry[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  return Promise.all(
    entries.map(async (e) => ({ name: e.name, isDirectory: e.isDirectory() || (e.isSymbolicLink() && (await linkIsFolder(join(dir, e.name)))) })),
  );
}

/**
 * Symlinked model and version folders are followed, as Triton does. A link that cannot be resolved (a loop,
 * a dangling target) counts as a folder, so the scan reports its error on that model instead of skipping it.
 */
async function linkIsFolder(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return true;
  }
}

/** Every file under a version folder (models such as TF SavedModel are folders themselves). */
async function filesUnder(dir: string, prefix = '', depth = 0): Promise<ScannedFile[]> {
  if (depth > 8) return [];
  const out: ScannedFile[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const full = join(dir, e.name);
    const rel = prefix ? `${prefix}/${e.name}` : e.name;
    // Symlinked files (common in repositories that share weights) count by their target; a link that
    // cannot be resolved is left out, so the model reports its file as missing.
    const s = e.isSymbolicLink() ? await stat(full).catch(() => undefined) : undefined;
    if (e.isDirectory() || s?.isDirectory()) out.push(...(await filesUnder(full, rel, depth + 1)));
    else if (e.isFile() || s?.isFile()) {
      const st = s ?? (await stat(full));
      out.push({ path: rel, bytes: st.size, mtimeMs: st.mtimeMs });
    }
  }
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Scans one model folder. `name` must already have passed checkModelName. */
export async function scanModelFolder(repository: string, name: string): Promise<ScannedModel> {
  const dir = join(repository, name);
  const model: ScannedModel = { name, repository, dir, versions: [], ignored: [], fingerprint: '' };
  try {
    const layout = describeModelFolder(await listing(dir));
    model.ignored = layout.ignored;
    const parts: string[] = [];
    if (layout.hasConfig) {
      model.configPath = join(dir, CONFIG_FILE);
      const s = await stat(model.configPath);
      // Never a plain readFile: a FIFO or a link to /dev/zero here would park the thread pool (safe-read.ts).
      model.configText = await readRegularText(model.configPath, READ_LIMITS.config);
      parts.push(`config:${s.size}:${s.mtimeMs}`);
    }
    for (const v of layout.versions) {
      const vdir = join(dir, String(v));
      const files = await filesUnder(vdir);
      model.versions.push({ version: v, dir: vdir, files });
      parts.push(`v${v}:` + files.map((f) => `${f.path}:${f.bytes}:${f.mtimeMs}`).join(','));
    }
    model.fingerprint = parts.join('|');
  } catch (err) {
    model.error = `failed to read model folder '${dir}': ${(err as Error).message}`;
    model.fingerprint = `error:${model.error}`;
  }
  return model;
}

/**
 * Scans every repository. A model found in two or more repositories is returned once, with `error` set
 * to Triton's reason, and with the repositories listed so the user can see where the copies are.
 */
export async function scanRepositories(paths: readonly string[]): Promise<RepositoryScan> {
  const repositories = paths.map((p) => resolve(p));
  const byRepo = new Map<string, string[]>();
  const unreadable: RepositoryScan['unreadable'] = [];
  for (const repo of repositories) {
    try {
      byRepo.set(repo, modelFoldersOf(await listing(repo)));
    } catch (err) {
      unreadable.push({ repository: repo, error: (err as Error).message });
    }
  }
  const duplicates = findDuplicateModels(byRepo);
  const models = new Map<string, ScannedModel>();
  const pending: Promise<void>[] = [];
  for (const [repo, names] of byRepo) {
    for (const name of names) {
      if (models.has(name)) continue;
      const dupRepos = duplicates.get(name);
      if (dupRepos) {
        models.set(name, {
          name,
          repository: dupRepos.join(','),
          dir: join(repo, name),
          versions: [],
          ignored: [],
          error: `${DUPLICATE_MODEL_REASON}: ${dupRepos.map((r) => join(r, name)).join(', ')}`,
          fingerprint: `dup:${dupRepos.join(',')}`,
        });
        continue;
      }
      // Reserve the slot now (keeps the order), fill it when the folder has been read; folders are read
      // concurrently because a poll is mostly waiting on the filesystem.
      models.set(name, undefined as unknown as ScannedModel);
      pending.push(scanModelFolder(repo, name).then((m) => void models.set(name, m)));
    }
  }
  await Promise.all(pending);
  return { repositories, models, unreadable };
}

/** Finds one model by name across the repositories (explicit-mode load). Undefined when absent. */
export async function scanOneModel(paths: readonly string[], name: string): Promise<ScannedModel | undefined> {
  if (checkModelName(name)) return undefined;
  const scan = await scanRepositories(paths);
  return scan.models.get(name);
}
