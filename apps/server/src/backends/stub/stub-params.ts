/**
 * A stub model's own `parameters` keys (InferScope's, in the way Triton's python backend takes its
 * settings from the model config), read at load through core's one table and strict reading
 * (config/numeric-parameters.ts): a value that is not plain digits in range refuses the load with an
 * error naming the key.
 *
 * - stub_load_timeout_seconds: seconds a stub may take from spawn to ready (import, load, initialize)
 * - execute_timeout_ms: ms one execute() may run before its stub is killed (its batch answered with an
 *   error) and restarted; 0 or absent: no limit, as Triton has none by default
 * - decoupled_final_timeout_seconds: see decoupled-runs.ts
 */
import type { ModelConfig } from '@inferscope/core/config';
import { EXECUTE_TIMEOUT_KEY, FINAL_TIMEOUT_KEY, LOAD_TIMEOUT_KEY, numericParameter } from '@inferscope/core/config';
import { DEFAULT_FINAL_TIMEOUT_S } from './decoupled-runs';

export { EXECUTE_TIMEOUT_KEY, LOAD_TIMEOUT_KEY };
const DEFAULT_LOAD_TIMEOUT_S = 120;

export function loadTimeoutMs(config: ModelConfig): number {
  const s = numericParameter(config, LOAD_TIMEOUT_KEY);
  return (s && s > 0 ? s : DEFAULT_LOAD_TIMEOUT_S) * 1000;
}

export function executeTimeoutMs(config: ModelConfig): number {
  return numericParameter(config, EXECUTE_TIMEOUT_KEY) ?? 0;
}

/** Seconds a decoupled request may wait for its final response (parameter FINAL_TIMEOUT_KEY). */
export function finalTimeoutMs(config: ModelConfig): number {
  const s = numericParameter(config, FINAL_TIMEOUT_KEY);
  return (s && s > 0 ? s : DEFAULT_FINAL_TIMEOUT_S) * 1000;
}
