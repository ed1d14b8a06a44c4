/**
 * validateModelConfig: every rule Triton applies to a model config before serving it, in Triton's order
 * (repository name check, ValidateModelConfig, ValidateInstanceGroup, ValidateModelIOConfig, warmup), so
 * the first issue is the one Triton would report. Unlike Triton it does not stop there: all issues are
 * returned, each with Triton's message, an optional hint and the path of the field.
 *
 * Expects a NORMALISED config (normalizeModelConfig): Triton validates after filling its defaults, and
 * some rules (KIND_AUTO, version policy) only make sense then.
 */
import type { ConfigIssue } from '../errors';
import type { ModelConfig } from '../types';
import { validateEnsemble } from './ensemble';
import { validateInstanceGroups } from './instanceGroups';
import { validateBatchIO, validateInputsOutputs } from './io';
import { IssueList, type Rule, type ValidateOptions } from './issues';
import {
  validateNumericParameters, validateBatchSizeAndVersionPolicy, validateCacheAndTransactions, validateDynamicBatching, validateModelMetrics,
  validateName, validatePlatformAndBackend,
} from './model';
import { validateSequenceBatching } from './sequence';
import { validateWarmup } from './warmup';

export type { ValidateOptions } from './issues';

/** In order. Exported so tests and tools can list them. */
export const RULES: readonly { name: string; rule: Rule }[] = [
  { name: 'name', rule: validateName },
  { name: 'platform-backend', rule: validatePlatformAndBackend },
  { name: 'batch-size-version-policy', rule: validateBatchSizeAndVersionPolicy },
  { name: 'dynamic-batching', rule: validateDynamicBatching },
  { name: 'sequence-batching', rule: validateSequenceBatching },
  { name: 'ensemble', rule: validateEnsemble },
  { name: 'cache-transactions', rule: validateCacheAndTransactions },
  { name: 'model-metrics', rule: validateModelMetrics },
  { name: 'instance-groups', rule: validateInstanceGroups },
  { name: 'inputs-outputs', rule: validateInputsOutputs },
  { name: 'batch-io', rule: validateBatchIO },
  { name: 'warmup', rule: validateWarmup },
  { name: 'numeric-parameters', rule: validateNumericParameters },
];

/** [] = Triton would accept the config. */
export function validateModelConfig(config: ModelConfig, opts: ValidateOptions): ConfigIssue[] {
  const issues = new IssueList();
  for (const { rule } of RULES) rule(config, issues, opts);
  return issues.issues;
}
