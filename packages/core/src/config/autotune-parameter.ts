/**
 * The autotuner's target, declared in the model's config as a parameter Triton ignores:
 * `parameters { key: "autotune_p99_ms" value: { string_value: "3" } }`, or given by control (target_ms)
 * or the simulator (--autotune). Its rule (0.001 to 3,600,000 ms, at most 3 decimals: the tuner works in
 * whole µs, so a target below 1 µs would be read as 0) is numeric-parameters.ts's; every way in reads
 * the target through `autotuneTargetUs` / `autotuneTargetOfMs`.
 */
import { parseNumberText } from './number-text';
import { AUTOTUNE_PARAMETER, NUMERIC_PARAMETERS, numericParameter, numericParameterProblem } from './numeric-parameters';
import type { ModelConfig } from './types';

export { AUTOTUNE_PARAMETER };

/** Why the parameter's value is refused, or undefined when it is absent or good. */
export function autotuneTargetProblem(config: Pick<ModelConfig, 'name' | 'parameters'>): string | undefined {
  return numericParameterProblem(config, AUTOTUNE_PARAMETER);
}

/** The declared p99 target in µs, or undefined when the config declares none. Throws on a refused value. */
export function autotuneTargetUs(config: Pick<ModelConfig, 'name' | 'parameters'>): number | undefined {
  const ms = numericParameter(config, AUTOTUNE_PARAMETER);
  return ms === undefined ? undefined : Math.round(ms * 1000);
}

/**
 * A target given in ms outside a config (control's target_ms, the CLI's --autotune), in µs, read by the
 * same rule; `what` names it in the refusal. A JSON number is read as JavaScript writes it (1e-7 and
 * 0.0001 are refused as the text would be).
 */
export function autotuneTargetOfMs(ms: number | string, what: string): number {
  return Math.round(parseNumberText(String(ms), what, NUMERIC_PARAMETERS[AUTOTUNE_PARAMETER]!) * 1000);
}

/**
 * Warnings about an accepted target: one the model cannot meet even alone (below its batch-1 latency, when
 * a calibration knows it; the tuner then holds the smallest delay and fails no request for it), or a model
 * without batching, where there is nothing to tune.
 */
export function autotuneWarnings(config: Pick<ModelConfig, 'name' | 'parameters' | 'max_batch_size'>, batch1Us?: number): string[] {
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
