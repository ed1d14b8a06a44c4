/**
 * From a scanned model folder to the config the model is served with, in Triton's order:
 * parse config.pbtxt (optional) -> pick versions by the policy -> auto-complete from the model file
 * (strict_model_config=false) -> normalise with Triton's defaults -> validate.
 * Any failure becomes the model's UNAVAILABLE reason; nothing here throws.
 */
import { join } from 'node:path';
import type { ModelConfig } from '@inferscope/core/config';
import { DEFAULT_MODEL_FILENAMES, guessPlatform, selectVersions, type VersionSelection } from '@inferscope/core/repository';
import type { ScannedModel, ScannedVersion } from '../repository/scan';
import type { ModelRuntime } from './runtime';
import { cleanConfigTemps } from './config-writeback/atomic-file';

export interface ResolvedModel {
  /** config as written (parsed, before auto-complete/normalisation): what saveConfig edits */
  raw: ModelConfig;
  /** normalised, auto-completed, validated: what the model is served with */
  config?: ModelConfig;
  selection?: VersionSelection;
  /** model file name inside each version folder */
  modelFilename?: string;
  error?: string;
}

/** Formats a config error so the reason always carries its position when the parser gave one. */
export function describeConfigError(err: unknown, where = 'config.pbtxt'): string {
  const e = err as { message?: string; line?: number; column?: number };
  const msg = e?.message ?? String(err);
  if (typeof e?.line === 'number' && !/line \d+/.test(msg)) {
    return `${where}: ${msg} (line ${e.line}${typeof e.column === 'number' ? `, column ${e.column}` : ''})`;
  }
  return `${where}: ${msg}`;
}

export function modelFilenameOf(config: ModelConfig): string | undefined {
  if (config.default_model_filename) return config.default_model_filename;
  return DEFAULT_MODEL_FILENAMES[config.platform ?? ''] ?? DEFAULT_MODEL_FILENAMES[config.backend ?? ''];
}

export function versionOf(scanned: ScannedModel, version: number): ScannedVersion | undefined {
  return scanned.versions.find((v) => v.version === version);
}

export async function resolveModel(scanned: ScannedModel, runtime: ModelRuntime, gpuCount: number): Promise<ResolvedModel> {
  if (scanned.error) return { raw: {}, error: scanned.error };
  // Leftovers of a config save that was killed mid-write (never throws; only our own temp names).
  await cleanConfigTemps(scanned.dir);
  let raw: ModelConfig = {};
  if (scanned.configText !== undefined) {
    try {
      raw = runtime.config.parse(scanned.configText);
    } catch (err) {
      return { raw: {}, error: describeConfigError(err) };
    }
  }
  const selection = selectVersions(
    scanned.versions.map((v) => v.version),
    raw.version_policy,
    scanned.name,
  );
  if (selection.error) return { raw, selection, error: selection.error };

  // Without platform/backend, look at the files of the newest selected version (Triton's auto-complete
  // does the same: a folder holding model.onnx is an onnxruntime model).
  const newest = versionOf(scanned, selection.versions[selection.versions.length - 1])!;
  let withPlatform = raw;
  if (!raw.platform && !raw.backend) {
    const guess = guessPlatform(newest.files.map((f) => f.path));
    if (!guess.platform && !guess.backend) {
      return {
        raw,
        selection,
        error: scanned.configText === undefined
          ? `no config.pbtxt and no recognisable model file in version ${newest.version}: cannot auto-complete the configuration`
          : "config.pbtxt: must specify 'platform' or 'backend' (no recognisable model file to auto-complete from)",
      };
    }
    withPlatform = { ...raw, ...guess };
  }
  const modelFilename = modelFilenameOf(withPlatform);
  let completed = withPlatform;
  if (modelFilename && newest.files.some((f) => f.path === modelFilename || f.path.startsWith(modelFilename + '/'))) {
    try {
      completed = await runtime.backends.autoComplete(join(newest.dir, modelFilename), withPlatform);
    } catch (err) {
      return { raw, selection, modelFilename, error: `auto-complete failed: ${(err as Error).message}` };
    }
  }
  let config: ModelConfig;
  try {
    config = runtime.config.normalize(completed, { modelName: scanned.name, gpuCount });
  } catch (err) {
    return { raw, selection, modelFilename, error: describeConfigError(err) };
  }
  const problems = runtime.config.validate(config, { folderName: scanned.name, gpuCount });
  if (problems.length > 0) {
    const located = runtime.config.locate?.(problems[0], raw) ?? problems[0];
    return { raw, selection, modelFilename, config, error: describeConfigError(located) };
  }
  return { raw, config, selection, modelFilename: modelFilenameOf(config) ?? modelFilename };
}
