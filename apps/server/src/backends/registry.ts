/**
 * Backend lookup by the config's `backend` (preferred, as in current Triton) or `platform`.
 * Backends Triton has but InferScope does not are named explicitly, so the model's UNAVAILABLE reason
 * says "not available here" rather than "unknown".
 */
import type { ModelConfig } from '@inferscope/core/config';
import { BackendUnavailableError, type Backend } from './types';
import { onnxRuntimeBackend } from './onnxruntime/backend';
import { pytorchBackend } from './pytorch/backend';
import { pythonBackend } from './python/backend';

const backends = new Map<string, Backend>();

export function registerBackend(backend: Backend): void {
  backends.set(backend.name, backend);
}

registerBackend(onnxRuntimeBackend);
registerBackend(pytorchBackend);
registerBackend(pythonBackend);

/** Triton's backends and platforms that InferScope knows of but does not implement. */
const KNOWN_ELSEWHERE: Record<string, string> = {
  tensorrt: 'tensorrt',
  tensorrt_plan: 'tensorrt',
  tensorflow: 'tensorflow',
  tensorflow_graphdef: 'tensorflow',
  tensorflow_savedmodel: 'tensorflow',
  openvino: 'openvino',
  fil: 'fil',
  dali: 'dali',
  vllm: 'vllm',
  tensorrtllm: 'tensorrtllm',
};

export function listBackends(): Backend[] {
  return [...backends.values()];
}

/** The backend for `config`, or BackendUnavailableError with a message fit for the model's state. */
export function getBackend(config: ModelConfig): Backend {
  const model = config.name ? `model '${config.name}'` : 'the model';
  const available = [...backends.keys()].join(', ');
  if (config.backend) {
    const b = backends.get(config.backend);
    if (b) return b;
    if (KNOWN_ELSEWHERE[config.backend]) {
      throw new BackendUnavailableError(
        `backend '${config.backend}' of ${model} is not available in InferScope (available: ${available})`,
      );
    }
    throw new BackendUnavailableError(`unable to find backend '${config.backend}' for ${model} (available: ${available})`);
  }
  if (config.platform) {
    for (const b of backends.values()) if (b.platforms.includes(config.platform)) return b;
    if (KNOWN_ELSEWHERE[config.platform]) {
      throw new BackendUnavailableError(
        `platform '${config.platform}' of ${model} is not available in InferScope (available: ${available})`,
      );
    }
    throw new BackendUnavailableError(`unknown platform '${config.platform}' for ${model} (available: ${available})`);
  }
  throw new BackendUnavailableError(`${model} has neither 'backend' nor 'platform' in its configuration`);
}
