/**
 * Triton's rules for version folders and version policies, as pure functions over a folder listing.
 *
 * Learned from Triton core's model lifecycle (VersionsToLoad): a model's version folders are its
 * sub-folders whose names are integers. Triton skips a few reserved folders, ignores names with leading
 * zeros (so `01` and `1` can never both claim version 1) and ignores names that fail to convert.
 * We are stricter than Triton's `stoll` (which would read `1abc` as 1 and accept `-3`): only a positive
 * decimal integer names a version. Anything else is ignored WITH a reason, so the repository view can
 * say why a folder does not count instead of silently skipping it.
 */

/** Folders Triton reserves inside a model folder; never versions, never warned about. */
export const RESERVED_MODEL_SUBFOLDERS: readonly string[] = ['warmup', 'initial_state', 'configs'];

export type VersionFolder = { version: number } | { ignored: string };

export function classifyVersionFolder(name: string): VersionFolder {
  if (RESERVED_MODEL_SUBFOLDERS.includes(name)) return { ignored: `reserved folder '${name}'` };
  if (name.length > 1 && name.startsWith('0') && /^\d+$/.test(name)) {
    return { ignored: `ignore version directory '${name}' which contains leading zeros in its directory name` };
  }
  if (!/^[1-9][0-9]*$/.test(name)) {
    return { ignored: `ignore version directory '${name}' which is not a positive integer` };
  }
  const version = Number(name);
  if (!Number.isSafeInteger(version)) {
    return { ignored: `ignore version directory '${name}' which is too large to be a version number` };
  }
  return { version };
}

/** Structural copy of model_config.proto's ModelVersionPolicy (exactly one of the three is set). */
export interface VersionPolicyLike {
  latest?: { num_versions?: number };
  all?: Record<string, never> | object;
  specific?: { versions?: number[] };
}

export interface VersionSelection {
  /** versions to load, ascending */
  versions: number[];
  /** `specific` versions that have no folder; each has a message in `warnings` */
  missing: number[];
  warnings: string[];
  /** set when nothing can be loaded: the model is then UNAVAILABLE with this reason */
  error?: string;
}

/**
 * Which of the available versions a policy loads. Default policy (none given) is Triton's: latest 1.
 * `specific` loads only the listed versions that exist and reports each missing one, like Triton's log
 * line; an empty result is an error for the whole model (Triton refuses such a load).
 */
export function selectVersions(available: readonly number[], policy: VersionPolicyLike | undefined, model = 'model'): VersionSelection {
  const existing = [...new Set(available)].sort((a, b) => a - b);
  const warnings: string[] = [];
  const missing: number[] = [];
  let versions: number[];
  if (policy?.specific) {
    const wanted = [...new Set(policy.specific.versions ?? [])].sort((a, b) => a - b);
    versions = wanted.filter((v) => existing.includes(v));
    for (const v of wanted) {
      if (!existing.includes(v)) {
        missing.push(v);
        warnings.push(`version ${v} is specified for model '${model}', but the version directory is not present`);
      }
    }
  } else if (policy?.all) {
    versions = existing;
  } else {
    const n = policy?.latest?.num_versions ?? 1;
    versions = n <= 0 ? [] : existing.slice(-n);
  }
  const selection: VersionSelection = { versions, missing, warnings };
  if (versions.length === 0) {
    selection.error = `at least one version must be available under the version policy of model '${model}'`;
  }
  return selection;
}

/** Parses a version in a URL (`/v2/models/m/versions/{v}`); '' means "no version given". */
export function parseRequestedVersion(text: string | undefined): { version?: number; error?: string } {
  if (text === undefined || text === '') return {};
  if (!/^[0-9]+$/.test(text) || !Number.isSafeInteger(Number(text))) {
    return { error: `failed to get model version from specified version string '${text}', version should be an integral value > 0` };
  }
  const version = Number(text);
  if (version <= 0) {
    return { error: `invalid model version specified '${text}', version should be an integral value > 0` };
  }
  return { version };
}
