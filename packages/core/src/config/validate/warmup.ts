/**
 * Warmup samples: the checks Triton makes when it builds warmup requests at load time
 * (TritonModelInstance::GenerateWarmupData), moved up front so they show before loading.
 */
import { nameOf, type Rule } from './issues';

export const validateWarmup: Rule = (config, issues) => {
  const maxBatch = config.max_batch_size ?? 0;
  (config.model_warmup ?? []).forEach((w, i) => {
    const path = `model_warmup[${i}]`;
    const batch = w.batch_size ?? 0;
    if (batch === 0) return; // Triton skips batch-0 samples
    if (maxBatch === 0 ? batch !== 1 : batch > maxBatch) {
      issues.add(
        `warmup sample '${w.name ?? ''}' of model ${nameOf(config)} has batch_size ${batch}, ` +
          (maxBatch === 0 ? 'but a model with max_batch_size 0 only takes batch_size 1' : `above max_batch_size ${maxBatch}`),
        `${path}.batch_size`,
      );
      return;
    }
    for (const [input, meta] of Object.entries(w.inputs ?? {})) {
      if ((meta.dims ?? []).includes(-1)) {
        issues.add(`warmup setting expects all variable-size dimensions are specified for input '${input}'`,
          `${path}.inputs[${input}]`, 'warmup tensors need a concrete shape: replace -1 with a size');
        return;
      }
      if (meta.zero_data === undefined && meta.random_data === undefined && meta.input_data_file === undefined) {
        issues.add(`warmup setting expects input '${input}' to have input_data_type set`, `${path}.inputs[${input}]`,
          'add zero_data: true, random_data: true or input_data_file: "<file in warmup/>"');
        return;
      }
    }
  });
};
