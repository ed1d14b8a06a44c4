/**
 * loadModelConfig: text -> parsed -> normalised -> validated, in one call, with validation issues
 * pointed at the line and column of the field they are about.
 */
import { adviseModelConfig } from './advise';
import { ConfigError, type ConfigIssue } from './errors';
import { normalizeModelConfig, type NormalizeOptions } from './normalize';
import { parseModelConfigWithLocations, type SourceLocations } from './parser';
import type { ModelConfig } from './types';
import { validateModelConfig } from './validate/index';
import { unservedFields } from './field-use';

export interface LoadOptions {
  /** the model's folder name: used as the name when the config has none, and must equal it otherwise */
  modelName: string;
  gpuCount: number;
  versionEntries?: NormalizeOptions['versionEntries'];
  /** false skips the name == folder check (e.g. a config.pbtxt checked on its own) */
  checkFolderName?: boolean;
}

export interface LoadResult {
  /** the normalised config; present only when it is valid */
  config?: ModelConfig;
  /** the first problem: a parse error, or the first validation issue (the one Triton would report) */
  error?: ConfigError | ConfigIssue;
  /** every validation issue (empty when the text did not parse) */
  issues: ConfigIssue[];
  /** warnings: accepted by Triton but probably not meant (adviseModelConfig), located like issues */
  advice: ConfigIssue[];
  /** fields Triton accepts that InferScope's server does not serve (unservedFields): a load refuses them */
  unserved: ConfigIssue[];
  /** the normalised config even when invalid (for printing / inspection); absent when the text did not parse */
  normalized?: ModelConfig;
}

export function loadModelConfig(text: string, opts: LoadOptions): LoadResult {
  let parsed;
  try {
    parsed = parseModelConfigWithLocations(text);
  } catch (e) {
    if (e instanceof ConfigError) return { error: e, issues: [], advice: [], unserved: [] };
    throw e;
  }
  const normalized = normalizeModelConfig(parsed.config, opts);
  const issues = validateModelConfig(normalized, {
    gpuCount: opts.gpuCount,
    folderName: opts.checkFolderName === false ? undefined : opts.modelName,
  }).map((issue) => locate(issue, parsed.locations));
  const advice = adviseModelConfig(normalized).map((issue) => locate(issue, parsed.locations));
  const unserved = unservedFields(normalized).map((issue) => locate(issue, parsed.locations));
  if (issues.length > 0) return { error: issues[0], issues, advice, unserved, normalized };
  return { config: normalized, issues, advice, unserved, normalized };
}

/** Adds line/column from the closest written ancestor of the issue's path ('input[0].dims' -> 'input[0]' -> 'input'). */
export function locate(issue: ConfigIssue, locations: SourceLocations): ConfigIssue {
  let path = issue.path;
  while (path) {
    const at = locations.get(path);
    if (at) return { ...issue, line: at.line, column: at.column };
    const cut = Math.max(path.lastIndexOf('.'), path.lastIndexOf('['));
    path = cut > 0 ? path.slice(0, cut) : '';
  }
  return issue;
}
