/**
 * Triton's pytorch backend parameters, as the stub applies them: INFERENCE_MODE (default on),
 * DISABLE_OPTIMIZED_EXECUTION (default off), INTRA_OP_THREAD_COUNT / INTER_OP_THREAD_COUNT. Threads
 * follow the onnxruntime rule: unless the config says otherwise, instances x intra-op threads never
 * exceed the cores (a torch stub left at torch's default takes every core, and two of them halve each
 * other on a 2-core host).
 */
import type { ModelConfig } from '@inferscope/core/config';
import { numericParameter } from '@inferscope/core/config';
import { boolParam, instanceCount } from '../onnxruntime/session-options';

export interface TorchSettings {
  intraOpThreads: number;
  interOpThreads: number;
  inferenceMode: boolean;
  disableOptimizedExecution: boolean;
}

/** Triton's upper-case key, with the lower-case spelling the onnxruntime backend uses accepted too. */
function either<T>(config: ModelConfig, key: string, read: (c: ModelConfig, k: string) => T | undefined): T | undefined {
  return read(config, key) ?? read(config, key.toLowerCase());
}

export function torchSettings(config: ModelConfig, cpuCount: number): TorchSettings {
  const intra = either(config, 'INTRA_OP_THREAD_COUNT', numericParameter);
  const inter = either(config, 'INTER_OP_THREAD_COUNT', numericParameter);
  return {
    intraOpThreads: intra && intra > 0 ? intra : Math.max(1, Math.floor(cpuCount / instanceCount(config))),
    interOpThreads: inter && inter > 0 ? inter : 1,
    inferenceMode: either(config, 'INFERENCE_MODE', boolParam) ?? true,
    disableOptimizedExecution: either(config, 'DISABLE_OPTIMIZED_EXECUTION', boolParam) ?? false,
  };
}
