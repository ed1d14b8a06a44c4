/**
 * Every numeric model `parameters` key InferScope reads, with its rule: the one table config validation
 * checks (a bad value refuses the load, with line and column, naming the key) and every reader reads
 * through (`numericParameter`), so a value is never read one way and checked another. The text is read by
 * number-text.ts (plain digits; see there why). Keys Triton's backends define keep Triton's names; the
 * rest are InferScope's own.
 */
import { readNumberText, type NumberRule } from './number-text';
import type { ModelConfig } from './types';

/** A stub's execute() may run this many ms before its stub is killed (0 or absent: no limit). */
export const EXECUTE_TIMEOUT_KEY = 'execute_timeout_ms';
/** Seconds a stub may take from spawn to ready. */
export const LOAD_TIMEOUT_KEY = 'stub_load_timeout_seconds';
/** Seconds a decoupled request may wait for its final response. */
export const FINAL_TIMEOUT_KEY = 'decoupled_final_timeout_seconds';
/** Seconds a decoupled request's client may take none of its responses while the model waits to send (send-window.ts). */
export const SEND_STALL_KEY = 'decoupled_send_stall_seconds';
/** Bytes of intermediates per input element a model states (memory/request-cost.ts). */
export const ACTIVATION_PARAMETER = 'activation_bytes_per_input_element';
/** The autotuner's p99 target in ms (autotune-parameter.ts). */
export const AUTOTUNE_PARAMETER = 'autotune_p99_ms';

const THREADS: NumberRule = { min: 0, max: 1024 };
/** seconds: held so that their milliseconds stay exact integers */
const SECONDS: NumberRule = { min: 0, max: Math.floor(Number.MAX_SAFE_INTEGER / 1000) };

export const NUMERIC_PARAMETERS: Readonly<Record<string, NumberRule>> = {
  [EXECUTE_TIMEOUT_KEY]: { min: 0, max: Number.MAX_SAFE_INTEGER },
  [LOAD_TIMEOUT_KEY]: SECONDS,
  [FINAL_TIMEOUT_KEY]: SECONDS,
  [SEND_STALL_KEY]: SECONDS,
  [ACTIVATION_PARAMETER]: { min: 0, max: 1_000_000, decimals: 3 },
  // µs are the autotuner's unit: a target below 1 µs (0.001 ms) would be read as 0
  [AUTOTUNE_PARAMETER]: { min: 0.001, max: 3_600_000, decimals: 3 },
  // Triton's onnxruntime backend
  intra_op_thread_count: THREADS,
  inter_op_thread_count: THREADS,
  execution_mode: { min: 0, max: 1 },
  // Triton's pytorch backend
  INTRA_OP_THREAD_COUNT: THREADS,
  INTER_OP_THREAD_COUNT: THREADS,
};

/** The value of a numeric parameter, or the refusal of its text; undefined when the config does not set it. */
function read(config: Pick<ModelConfig, 'name' | 'parameters'>, key: string): number | { error: string } | undefined {
  const p = config.parameters?.[key];
  if (p === undefined) return undefined;
  const rule = Object.hasOwn(NUMERIC_PARAMETERS, key) ? NUMERIC_PARAMETERS[key] : undefined;
  if (!rule) throw new Error(`'${key}' is not a numeric parameter (config/numeric-parameters.ts)`);
  return readNumberText(p.string_value ?? '', `parameter '${key}'${config.name ? ` of model '${config.name}'` : ''}`, rule);
}

/** Why a numeric parameter's value is refused, or undefined when it is absent or good. */
export function numericParameterProblem(config: Pick<ModelConfig, 'name' | 'parameters'>, key: string): string | undefined {
  const v = read(config, key);
  return typeof v === 'object' ? v.error : undefined;
}

/** A numeric parameter's value, undefined when absent; throws the refusal of a bad value. */
export function numericParameter(config: Pick<ModelConfig, 'name' | 'parameters'>, key: string): number | undefined {
  const v = read(config, key);
  if (typeof v === 'object') throw new Error(v.error);
  return v;
}
