/**
 * ONNX Runtime session options from a Triton model config, with Triton's onnxruntime backend keys:
 * parameters intra_op_thread_count / inter_op_thread_count / execution_mode / enable_mem_arena /
 * enable_mem_pattern, optimization.graph.level, and the execution providers from instance_group.kind
 * plus optimization.execution_accelerators.gpu_execution_accelerator (tensorrt, cuda).
 */
import type { ModelConfig } from '@inferscope/core/config';
import { numericParameter } from '@inferscope/core/config';

export type ExecutionProvider = string | { name: string; deviceId?: number };

function param(config: ModelConfig, key: string): string | undefined {
  return config.parameters?.[key]?.string_value;
}

export function boolParam(config: ModelConfig, key: string): boolean | undefined {
  const v = param(config, key)?.trim().toLowerCase();
  if (v === undefined || v === '') return undefined;
  if (['true', '1', 'yes', 'on'].includes(v)) return true;
  if (['false', '0', 'no', 'off'].includes(v)) return false;
  throw new Error(`parameter '${key}' of model '${config.name}' must be true or false, got '${v}'`);
}

/** Instances of this model across all its instance groups. */
export function instanceCount(config: ModelConfig): number {
  return (config.instance_group ?? []).reduce((n, g) => n + Math.max(0, g.count ?? 1), 0) || 1;
}

/**
 * Intra-op threads per session: the config's intra_op_thread_count, else the cores shared out among the
 * model's instances, so instances x threads never exceeds the cores (oversubscribing two cores with two
 * 2-thread sessions halves throughput; see FINDINGS.md).
 */
export function intraOpThreads(config: ModelConfig, cpuCount: number): number {
  const configured = numericParameter(config, 'intra_op_thread_count');
  if (configured !== undefined && configured > 0) return configured;
  return Math.max(1, Math.floor(cpuCount / instanceCount(config)));
}

export function sessionOptions(config: ModelConfig, cpuCount: number): Record<string, unknown> {
  // 0 sequential, 1 parallel: the table's range refuses anything else
  const executionMode = numericParameter(config, 'execution_mode') ?? 0;
  const level = config.optimization?.graph?.level ?? 0;
  const options: Record<string, unknown> = {
    intraOpNumThreads: intraOpThreads(config, cpuCount),
    interOpNumThreads: numericParameter(config, 'inter_op_thread_count') || 1,
    executionMode: executionMode === 1 ? 'parallel' : 'sequential',
    // Triton's mapping of optimization.graph.level: -1 basic, 1 extended, 2 disabled, otherwise all.
    graphOptimizationLevel: level === -1 ? 'basic' : level === 1 ? 'extended' : level === 2 ? 'disabled' : 'all',
  };
  const arena = boolParam(config, 'enable_mem_arena');
  if (arena !== undefined) options.enableCpuMemArena = arena;
  const pattern = boolParam(config, 'enable_mem_pattern');
  if (pattern !== undefined) options.enableMemPattern = pattern;
  return options;
}

/**
 * Providers for an instance, in preference order. KIND_GPU asks for CUDA (TensorRT first when it is
 * listed as a gpu_execution_accelerator); anything else runs on CPU. Unknown accelerator names are refused
 * at load time, as Triton does.
 */
export function executionProviders(config: ModelConfig, kind: string, gpuIndex: number): ExecutionProvider[] {
  const accelerators = config.optimization?.execution_accelerators;
  for (const a of accelerators?.gpu_execution_accelerator ?? []) {
    if (a.name !== 'tensorrt' && a.name !== 'cuda') {
      throw new Error(`unknown Execution Accelerator '${a.name}' is requested for model '${config.name}' (known: tensorrt, cuda)`);
    }
  }
  for (const a of accelerators?.cpu_execution_accelerator ?? []) {
    throw new Error(`unknown Execution Accelerator '${a.name}' is requested for model '${config.name}' (InferScope's CPU provider is ONNX Runtime's default)`);
  }
  if (kind !== 'KIND_GPU') return ['cpu'];
  const wantsTrt = (accelerators?.gpu_execution_accelerator ?? []).some((a) => a.name === 'tensorrt');
  return [
    ...(wantsTrt ? [{ name: 'tensorrt', deviceId: gpuIndex }] : []),
    { name: 'cuda', deviceId: gpuIndex },
    'cpu',
  ];
}

/** parameters { key: "lazy_load" value: { string_value: "true" } }: start an instance on its first batch. */
export function lazyLoad(config: ModelConfig): boolean {
  return boolParam(config, 'lazy_load') ?? false;
}
