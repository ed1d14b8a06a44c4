/**
 * The modelled memory cost of one model instance, used to reserve memory before loading it (and as the
 * figure itself where nothing can be measured):
 *   weights (the model file's size) + runtime workspace + the instance's thread + activations x max batch.
 * Activations are not known without running shape inference, so they are modelled as a multiple of the
 * bytes each sample brings in and takes out. The figure is deliberately rough and labelled 'modelled'.
 */
import type { ModelConfig, ModelInput, ModelOutput } from '@inferscope/core/config';
import { datatypeByteSize } from '@inferscope/core/config';

/**
 * A session's own bookkeeping and arena slack beyond weights and activations. Measured here (RSS growth
 * around session + warmup, ORT's process-wide set-up excluded): 1-5 MiB for the demo models.
 */
export const WORKSPACE_BYTES = 4 * 1024 * 1024;
/**
 * What one instance's worker thread costs before its session loads: a V8 isolate, onnxruntime-node's
 * module and per-thread set-up. Measured here (process RSS growth per CNN instance, 8 and 24 instances,
 * bench/memory/memexp.mts): 17-20 MiB per instance, of which the session itself is 0.1-2 MiB.
 * Without it 64 instances were admitted against a 300 MiB budget while RSS grew by 1 GB.
 */
export const INSTANCE_THREAD_BYTES = 16 * 1024 * 1024;
/** Intermediate tensors per sample, as a multiple of input + output bytes per sample. */
export const ACTIVATION_FACTOR = 8;
/** Variable dims (-1) are counted as this many elements when sizing a sample. */
export const VARIABLE_DIM_GUESS = 64;

function sampleBytes(io: ModelInput | ModelOutput): number {
  const elements = (io.dims ?? []).reduce((n, d) => n * (d < 0 ? VARIABLE_DIM_GUESS : d), 1);
  // Strings have no fixed size; count them as 64 bytes per element.
  const size = datatypeByteSize(io.data_type ?? 'TYPE_INVALID') || VARIABLE_DIM_GUESS;
  return elements * size;
}

export interface MemoryEstimate {
  weights: number;
  workspace: number;
  thread: number;
  activations: number;
  total: number;
}

export function estimateInstanceMemory(config: ModelConfig, weightsBytes: number): MemoryEstimate {
  const perSample = [...(config.input ?? []), ...(config.output ?? [])].reduce((a, io) => a + sampleBytes(io), 0);
  const activations = perSample * ACTIVATION_FACTOR * Math.max(1, config.max_batch_size ?? 0);
  return {
    weights: weightsBytes,
    workspace: WORKSPACE_BYTES,
    thread: INSTANCE_THREAD_BYTES,
    activations,
    total: weightsBytes + WORKSPACE_BYTES + INSTANCE_THREAD_BYTES + activations,
  };
}
