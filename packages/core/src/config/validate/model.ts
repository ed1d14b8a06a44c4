/**
 * Model-level rules of Triton's ValidateModelConfig: name, platform/backend, max_batch_size, version
 * policy, dynamic batching (preferred sizes, priority levels, queue policies, preserve_ordering),
 * response cache and transaction policy.
 */
import { nameOf, type Rule } from './issues';
import { PLATFORM, KNOWN_PLATFORMS, backendTypeOfBackend, backendTypeOfPlatform, suggestPlatform } from '../platforms';
import { AUTOTUNE_PARAMETER, NUMERIC_PARAMETERS, numericParameterProblem } from '../numeric-parameters';

export const validateName: Rule = (config, issues, opts) => {
  if (!config.name) {
    issues.add(`model configuration must specify 'name'`, 'name');
    return;
  }
  if (opts.folderName !== undefined && opts.folderName !== config.name) {
    issues.add(
      `unexpected directory name '${opts.folderName}' for model '${config.name}', directory name must equal model name`,
      'name',
      `rename the folder to '${config.name}' or set name: "${opts.folderName}" (or drop name: the folder name is used)`,
    );
  }
};

export const validatePlatformAndBackend: Rule = (config, issues) => {
  const name = nameOf(config);
  const platform = config.platform ?? '';
  const backend = config.backend ?? '';
  if (!backend && !platform && !config.default_model_filename) {
    // Triton's auto-complete could not pick a backend from the folder name ('model.<backend>').
    issues.add(
      `Invalid model name: Could not determine backend for model '${name}' with no backend in model configuration. ` +
        `Expected model name of the form 'model.<backend_name>'.`,
      undefined,
      'add platform: "onnxruntime_onnx" (or backend: "onnxruntime") to config.pbtxt',
    );
    return;
  }
  if (!backend) {
    if (platform !== PLATFORM.ensemble) {
      const guess = suggestPlatform(platform);
      issues.add(
        `unexpected platform type '${platform}' for ${name}`,
        'platform',
        (guess ? `did you mean platform: "${guess}"? ` : '') +
          `known platforms: ${KNOWN_PLATFORMS.join(', ')}; other backends are named with backend: "..."`,
      );
      return;
    }
  } else if (platform === PLATFORM.ensemble) {
    issues.add(`Ensemble model '${name}' must have platform type '${platform}' and empty backend type`, 'backend',
      'an ensemble runs other models; remove the backend field');
    return;
  }
  const backendType = backendTypeOfBackend(backend);
  if (backendType !== 'unknown' && backendType !== backendTypeOfPlatform(platform)) {
    issues.add(
      `unexpected 'platform' and 'backend' pair, got:${platform}, ${backend}`,
      'backend',
      'pairs are onnxruntime_onnx/onnxruntime, tensorrt_plan/tensorrt, pytorch_libtorch/pytorch, ' +
        'tensorflow_graphdef or tensorflow_savedmodel/tensorflow; giving only one of the two is enough',
    );
  }
};

export const validateBatchSizeAndVersionPolicy: Rule = (config, issues) => {
  const name = nameOf(config);
  if ((config.max_batch_size ?? 0) < 0) {
    issues.add(`'max_batch_size' must be non-negative value for ${name}`, 'max_batch_size',
      'use 0 for a model without a batch dimension, or the largest batch the model accepts');
  }
  if (!config.version_policy) issues.add(`must specify 'version policy' for ${name}`, 'version_policy');
};

export const validateDynamicBatching: Rule = (config, issues) => {
  const db = config.dynamic_batching;
  if (!db) return;
  const name = nameOf(config);
  const maxBatch = config.max_batch_size ?? 0;
  for (const size of db.preferred_batch_size ?? []) {
    if (size <= 0) {
      issues.add(`dynamic batching preferred size must be positive for ${name}`, 'dynamic_batching.preferred_batch_size');
      break;
    }
    if (size > maxBatch) {
      issues.add(
        `dynamic batching preferred size must be <= max batch size for ${name}`,
        'dynamic_batching.preferred_batch_size',
        maxBatch === 0
          ? 'max_batch_size is 0, so the model never batches; set max_batch_size to the largest batch the model accepts'
          : `preferred_batch_size ${size} is larger than max_batch_size ${maxBatch}; raise max_batch_size or lower the preferred size`,
      );
      break;
    }
  }

  const levels = db.priority_levels ?? 0;
  if (levels !== 0) {
    const defaultLevel = db.default_priority_level ?? 0;
    if (defaultLevel === 0 || defaultLevel > levels) {
      issues.add(`default priority level must be in range [1, ${levels}] for ${name}`, 'dynamic_batching.default_priority_level',
        `with priority_levels: ${levels}, set default_priority_level between 1 (highest) and ${levels}`);
    }
    for (const key of Object.keys(db.priority_queue_policy ?? {})) {
      const level = Number(key);
      if (level === 0 || level > levels) {
        issues.add(`priority queue policy must have priority level in range [1, ${levels}] for ${name}`,
          `dynamic_batching.priority_queue_policy[${key}]`, `priority levels count from 1 (highest) to ${levels}`);
        break;
      }
    }
  }

  if (db.preserve_ordering) {
    if (levels > 1) {
      issues.add(`Only one priority level is allowed when 'preserve_ordering' is true for ${name}`,
        'dynamic_batching.preserve_ordering',
        'responses in arrival order and priorities that overtake each other contradict; drop one of the two');
    }
    const policies = [db.default_queue_policy, ...Object.values(db.priority_queue_policy ?? {})];
    if (policies.some((p) => p && (p.default_timeout_microseconds ?? 0) !== 0 && p.timeout_action === 'DELAY')) {
      issues.add(`Queue policy can not have DELAY as timeout action when 'preserve_ordering' is true for ${name}`,
        'dynamic_batching.preserve_ordering');
    }
  }
};

export const validateCacheAndTransactions: Rule = (config, issues) => {
  const name = nameOf(config);
  if (config.sequence_batching && config.response_cache?.enable) {
    issues.add(
      `Response Cache does not currently support model ${name} with sequence batching scheduler. Please disable the response cache.`,
      'response_cache.enable',
    );
  }
  if (config.model_transaction_policy?.decoupled && config.response_cache?.enable) {
    issues.add(
      `Response Cache does not currently support model ${name} with 'decoupled' transaction policy. Please disable the response cache.`,
      'response_cache.enable',
    );
  }
};

export const validateModelMetrics: Rule = (config, issues) => {
  const controls = config.model_metrics?.metric_control ?? [];
  for (let i = 0; i < controls.length; i++) {
    const mc = controls[i]!;
    const path = `model_metrics.metric_control[${i}]`;
    let problem: string | undefined;
    if (!mc.metric_identifier) problem = `metric control must specify 'metric_identifier'`;
    else if (!mc.metric_identifier.family) problem = `metric identifier must specify non-empty 'family'`;
    else if (!mc.histogram_options) problem = `metric control must specify 'histogram_options'`;
    else if ((mc.histogram_options.buckets ?? []).length === 0) problem = `histogram options must specify non-empty 'buckets'`;
    if (problem) {
      issues.add(problem, path);
      return; // Triton stops at the first
    }
  }
};


/**
 * The numeric parameters InferScope reads (numeric-parameters.ts: execute_timeout_ms, thread counts, the
 * autotuner's target, ...): a value that is not plain digits in its range refuses the config, as the
 * readers would refuse it at load.
 */
export const validateNumericParameters: Rule = (config, issues) => {
  for (const key of Object.keys(config.parameters ?? {})) {
    if (!Object.hasOwn(NUMERIC_PARAMETERS, key)) continue;
    const problem = numericParameterProblem(config, key);
    if (!problem) continue;
    const hint = key === AUTOTUNE_PARAMETER ? 'write the p99 target in milliseconds, e.g. string_value: "3"' : 'write plain digits, e.g. string_value: "100"';
    issues.add(problem, `parameters.${key}`, hint);
  }
};
