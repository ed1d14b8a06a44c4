/**
 * The autotuner's target, declared in the model's config as a parameter Triton ignores:
 * `parameters { key: "autotune_p99_ms" value: { string_value: "3" } }`. This file is the one home of the
 * parameter's name and its reading: config validation refuses a bad value with these words, and the
 * simulator and the server read the target through `autotuneTargetUs`.
 */
import type { ModelConfig } from './types';

export const AUTOTUNE_PARAMETER = 'autotune_p99_ms';

/** Why the parameter's value is refused, or undefined when it is absent or good. */
export function autotuneTargetProblem(config: Pick<ModelConfig, 'parameters'>): string | undefined {
  const p = config.parameters?.[AUTOTUNE_PARAMETER];
  if (p === undefined) return undefined;
  const text = (p.string_value ?? '').trim();
  const v = Number(text);
  if (text === '' || !Number.isFinite(v)) return `parameter '${AUTOTUNE_PARAMETER}' must be a number of milliseconds, got ${JSON.stringify(p.string_value ?? '')}`;
  if (v <= 0) return `parameter '${AUTOTUNE_PARAMETER}' must be a p99 target above 0 ms, got ${text}`;
  return undefined;
}

/** The declared p99 target in µs, or undefined when the config declares none. Throws on a refused value. */
export function autotuneTargetUs(config: Pick<ModelConfig, 'parameters'>): number | undefined {
  const problem = autotuneTargetProblem(config);
  if (problem) throw new Error(problem);
  const p = config.parameters?.[AUTOTUNE_PARAMETER];
  return p === undefined ? undefined : Math.round(Number(p.string_value) * 1000);
}

/**
 * Warnings about an accepted target: one the model cannot meet even alone (below its batch-1 latency, when
 * a calibration knows it; the tuner then holds the smallest delay and fails no request for it), or a model
 * without batching, where there is nothing to tune.
 */
export function autotuneWarnings(config: Pick<ModelConfig, 'parameters' | 'max_batch_size'>, batch1Us?: number): string[] {
  if (autotuneTargetProblem(config) !== undefined) return [];
  const target = autotuneTargetUs(config);
  if (target === undefined) return [];
  const out: string[] = [];
  if ((config.max_batch_size ?? 0) === 0) out.push(`parameter '${AUTOTUNE_PARAMETER}' has no effect: max_batch_size is 0, so requests are never batched`);
  if (batch1Us !== undefined && target < batch1Us) {
    out.push(`parameter '${AUTOTUNE_PARAMETER}' (${target / 1000} ms) is below the model's batch-1 latency (${(batch1Us / 1000).toFixed(3)} ms): it cannot be met; the autotuner keeps the smallest delay`);
  }
  return out;
}
