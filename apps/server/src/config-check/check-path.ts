/**
 * `config check` on the disk: what a PATH is (a config.pbtxt, a model folder or a repository) and what
 * Triton would say about it. Config rules are core's; this file only reads folders and files, and adds
 * the folder-level rules: at least one version under the version policy, and the model file in each
 * selected version folder.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import {
  formatIssue, loadModelConfig, validateEnsembleSteps, type ConfigError, type ConfigIssue, type ModelConfig,
} from '@inferscope/core/config';
import { CONFIG_FILE, describeModelFolder, modelFoldersOf, selectVersions } from '@inferscope/core/repository';
import { READ_LIMITS, readRegularFileSync } from '../repository/safe-read';

/** config files as the server reads them: regular files only, capped (a FIFO must not hang the CLI) */
const readConfigText = (path: string): string => readRegularFileSync(path, READ_LIMITS.config).toString('utf8');

export interface PathCheck {
  /** the path as the user wrote it (a repository expands to one check per model folder) */
  path: string;
  kind: 'config' | 'model' | 'missing';
  /** the first problem (what Triton would report), absent when valid */
  error?: ConfigError | ConfigIssue;
  /** every validation issue, in Triton's order */
  issues: ConfigIssue[];
  /** things worth knowing that do not make the model invalid (ignored folders, missing specific versions) */
  warnings: string[];
  /** the normalised config when the text parsed */
  config?: ModelConfig;
}

export interface CheckOptions {
  gpuCount: number;
}

/** Expands PATH (a repository becomes its model folders) and checks each. */
export function checkPath(path: string, opts: CheckOptions): PathCheck[] {
  const full = resolve(path);
  if (!existsSync(full)) {
    return [{ path, kind: 'missing', error: { message: `no such file or directory: ${path}` }, issues: [], warnings: [] }];
  }
  if (statSync(full).isFile()) return [checkConfigFile(path, opts)];
  if (isModelFolder(full)) return [checkModelFolder(path, opts)];
  const models = modelFoldersOf(listing(full));
  if (models.length === 0) {
    return [{ path, kind: 'missing', error: { message: `${path} is neither a config.pbtxt, a model folder nor a repository of model folders` }, issues: [], warnings: [] }];
  }
  return models.map((m) => checkModelFolder(join(path, m), opts));
}

/** A folder is a model folder when it holds a config.pbtxt or numeric version folders. */
export function isModelFolder(dir: string): boolean {
  const layout = describeModelFolder(listing(dir));
  return layout.hasConfig || layout.versions.length > 0;
}

function listing(dir: string): { name: string; isDirectory: boolean }[] {
  return readdirSync(dir, { withFileTypes: true }).map((e) => ({
    name: e.name,
    isDirectory: e.isDirectory() || (e.isSymbolicLink() && safeIsDir(join(dir, e.name))),
  }));
}

function safeIsDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** Config-level checks only; the model name is the name of the folder the file is in. */
export function checkConfigFile(path: string, opts: CheckOptions): PathCheck {
  const full = resolve(path);
  const modelName = basename(dirname(full));
  const r = loadModelConfig(readConfigText(full), { modelName, gpuCount: opts.gpuCount });
  const issues = [...r.issues, ...r.unserved];
  return { path, kind: 'config', error: issues[0], issues, warnings: r.advice.map(formatIssue), config: r.normalized };
}

export function checkModelFolder(path: string, opts: CheckOptions): PathCheck {
  const full = resolve(path);
  const modelName = basename(full);
  const layout = describeModelFolder(listing(full));
  const warnings = layout.ignored
    .filter((i) => !i.why.startsWith('reserved'))
    .map((i) => `${i.name}: ${i.why}`);
  const firstVersion = layout.versions[0];
  const versionEntries = firstVersion === undefined ? [] : listing(join(full, String(firstVersion)));
  const text = layout.hasConfig ? readConfigText(join(full, CONFIG_FILE)) : '';
  if (!layout.hasConfig) warnings.push(`no ${CONFIG_FILE}: checked what Triton would auto-complete`);

  const r = loadModelConfig(text, { modelName, gpuCount: opts.gpuCount, versionEntries });
  warnings.push(...r.advice.map(formatIssue));
  const result: PathCheck = { path, kind: 'model', error: r.error, issues: r.issues, warnings, config: r.normalized };
  if (!r.normalized) return result; // did not parse

  const selection = selectVersions(layout.versions, r.normalized.version_policy, r.normalized.name ?? modelName);
  warnings.push(...selection.warnings);
  const folderIssues: ConfigIssue[] = [];
  if (selection.error) {
    folderIssues.push({
      message: selection.error,
      hint: layout.versions.length === 0
        ? `put the model file in a numbered version folder, e.g. ${modelName}/1/${r.normalized.default_model_filename ?? 'model.onnx'}`
        : `available versions: ${layout.versions.join(', ')}; check version_policy`,
    });
  } else {
    const file = requiredModelFile(r.normalized);
    for (const v of file ? selection.versions : []) {
      if (!existsSync(join(full, String(v), file!))) {
        folderIssues.push({
          // Triton's backends word it so (the path as the server sees it, the instance's model)
          message: `unable to find '${join(path, String(v), file!)}' for model instance '${r.normalized.name}'`,
          hint: `each version folder holds the model file (default_model_filename, '${file}' here)`,
        });
      }
    }
  }
  // An ensemble's steps are checked against the configs of the models beside it in the repository.
  if (r.issues.length === 0 && folderIssues.length === 0 && r.normalized.ensemble_scheduling) {
    folderIssues.push(...validateEnsembleSteps(r.normalized, (m) => siblingConfig(dirname(full), m, opts)));
  }
  result.issues = [...r.issues, ...r.unserved, ...folderIssues];
  result.error = result.issues[0];
  return result;
}

/** The normalised config of another model in the same repository, when it has a config.pbtxt that reads. */
function siblingConfig(repoDir: string, model: string, opts: CheckOptions): ModelConfig | undefined {
  if (!model || model.includes('/') || model.includes('\\') || model === '.' || model === '..') return undefined;
  const file = join(repoDir, model, CONFIG_FILE);
  if (!existsSync(file)) return undefined;
  return loadModelConfig(readConfigText(file), { modelName: model, gpuCount: opts.gpuCount }).normalized;
}

/**
 * The file a version folder must contain, for the backends whose file name Triton knows; ensembles and
 * custom backends (which may need no file at all, like 'identity') are not checked.
 */
const BACKENDS_WITH_FILES = new Set(['onnxruntime', 'tensorrt', 'pytorch', 'tensorflow', 'openvino', 'python']);
function requiredModelFile(config: ModelConfig): string | undefined {
  if (config.platform === 'ensemble') return undefined;
  if (!BACKENDS_WITH_FILES.has(config.backend ?? '')) return undefined;
  return config.default_model_filename || undefined;
}
