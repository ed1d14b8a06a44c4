/**
 * A stub model's own `parameters` keys (InferScope's, in the way Triton's python backend takes its
 * settings from the model config), read and validated at load: a value that is not a non-negative
 * integer refuses the load with an error naming the key.
 */
import type { ModelConfig } from '@inferscope/core/config';
import { intParam } from '../onnxruntime/session-options';
import { DEFAULT_FINAL_TIMEOUT_S, FINAL_TIMEOUT_KEY } from './decoupled-runs';

/** Seconds a stub may take from spawn to ready (import, load, initialize). */
export const LOAD_TIMEOUT_KEY = 'stub_load_timeout_seconds';
const DEFAULT_LOAD_TIMEOUT_S = 120;

/**
 * Milliseconds one execute() may run before its stub is killed (its batch answered with an error) and
 * restarted. 0 or absent: no limit, as Triton has none by default.
 */
export const EXECUTE_TIMEOUT_KEY = 'execute_timeout_ms';

export function loadTimeoutMs(config: ModelConfig): number {
  const s = intParam(config, LOAD_TIMEOUT_KEY);
  return (s && s > 0 ? s : DEFAULT_LOAD_TIMEOUT_S) * 1000;
}

export function executeTimeoutMs(config: ModelConfig): number {
  return intParam(config, EXECUTE_TIMEOUT_KEY) ?? 0;
}

/** Seconds a decoupled request may wait for its final response (parameter FINAL_TIMEOUT_KEY). */
export function finalTimeoutMs(config: ModelConfig): number {
  const s = intParam(config, FINAL_TIMEOUT_KEY);
  return (s && s > 0 ? s : DEFAULT_FINAL_TIMEOUT_S) * 1000;
}
