/**
 * A config checked as the server checks a file it loads or a live change it applies: Triton's rules first
 * (the first issue is the one Triton reports), then the fields InferScope parses but does not serve, each
 * in one line without a position (a live change has no file to point into; the loader adds positions).
 * One composition, so the server and teaching mode's simulated server refuse a change in the same words.
 */
import type { ModelConfig } from './types';
import { formatIssue } from './errors';
import { unservedFields } from './field-use';
import { validateModelConfig, type ValidateOptions } from './validate/index';

export interface ConfigProblem {
  message: string;
  /** dotted path of the field, when the rule names one */
  path?: string;
}

export function configProblems(config: ModelConfig, opts: ValidateOptions): ConfigProblem[] {
  return [...validateModelConfig(config, opts), ...unservedFields(config)]
    .map((issue) => ({ message: formatIssue({ ...issue, line: undefined }), path: issue.path }));
}
