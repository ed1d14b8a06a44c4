/**
 * adviseModelConfig: things Triton accepts but that are probably not what the author meant. Warnings,
 * never errors: a config with advice is still valid. Each names the field and explains itself.
 */
import type { ConfigIssue } from './errors';
import type { ModelConfig } from './types';
import { AUTOTUNE_PARAMETER, autotuneWarnings } from './autotune-parameter';

export function adviseModelConfig(config: ModelConfig): ConfigIssue[] {
  const advice: ConfigIssue[] = [];
  const maxBatch = config.max_batch_size ?? 0;

  for (const kind of ['input', 'output'] as const) {
    (config[kind] ?? []).forEach((io, i) => {
      const dims = io.dims ?? [];
      // [1] alone is a common per-item scalar; [1, ...] with more after it usually repeats the batch dimension
      if (maxBatch > 0 && dims.length >= 2 && dims[0] === 1) {
        advice.push({
          message: `model ${kind} '${io.name}' has dims [${dims.join(', ')}] starting with 1 while max_batch_size is ${maxBatch}`,
          hint: `dims exclude the batch dimension; with max_batch_size > 0 Triton prepends it, so requests must have shape [batch, ${dims.join(', ')}]. ` +
            `If the model's own shape is [batch, ${dims.slice(1).join(', ')}], write dims: [ ${dims.slice(1).join(', ')} ]`,
          path: `${kind}[${i}].dims`,
        });
      }
    });
  }

  const db = config.dynamic_batching;
  if (db && maxBatch === 0) {
    advice.push({
      message: 'dynamic_batching has no effect when max_batch_size is 0',
      hint: 'max_batch_size 0 means the model has no batch dimension, so every request runs alone; set max_batch_size to batch requests',
      path: 'dynamic_batching',
    });
  }
  if (db && (db.max_queue_delay_microseconds ?? 0) > 1_000_000) {
    advice.push({
      message: `max_queue_delay_microseconds is ${db.max_queue_delay_microseconds} (over one second)`,
      hint: 'the delay is in microseconds: 1000 is one millisecond',
      path: 'dynamic_batching.max_queue_delay_microseconds',
    });
  }
  const preferred = db?.preferred_batch_size ?? [];
  if (new Set(preferred).size !== preferred.length) {
    advice.push({ message: 'preferred_batch_size lists a size more than once', path: 'dynamic_batching.preferred_batch_size' });
  }
  for (const message of autotuneWarnings(config)) advice.push({ message, path: `parameters.${AUTOTUNE_PARAMETER}` });
  return advice;
}
