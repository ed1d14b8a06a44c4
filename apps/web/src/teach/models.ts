/**
 * Simulated models for the lessons. Costs are fitted to measurements on this project's CPU
 * (FINDINGS.md): the MLP is memory-bound (batch 1: 0.096 ms, batch 32: 0.301 ms -> ~90 µs + ~6.6 µs per
 * sample), the CNN compute-bound (~0.29 ms per sample whatever the batch). The "GPU" TensorRT variant is
 * modelled, and labelled so.
 */
import type { SimModel } from './sim-types';

const MiB = 2 ** 20;

export function mlp(over: Partial<SimModel> = {}, db: Record<string, unknown> | null = { max_queue_delay_microseconds: 0 }): SimModel {
  return {
    name: 'mlp_classifier', backend: 'onnxruntime', platform: 'onnxruntime_onnx',
    config: {
      max_batch_size: 32,
      ...(db ? { dynamic_batching: db } : {}),
      instance_group: [{ name: 'mlp_classifier_0', kind: 'KIND_CPU', count: 1 }],
      input: [{ name: 'input', data_type: 'TYPE_FP32', dims: [784] }],
      output: [{ name: 'logits', data_type: 'TYPE_FP32', dims: [10] }],
    },
    cost: { fixedUs: 90, perItemUs: 6.6 },
    memory: { weights: 2.7 * MiB, workspace: 24 * MiB, activationsPerItem: 0.05 * MiB },
    files: [{ path: 'mlp_classifier/config.pbtxt', bytes: 412 }, { path: 'mlp_classifier/1/model.onnx', bytes: 2_681_000 }],
    ...over,
  };
}

export function cnn(over: Partial<SimModel> = {}, count = 1): SimModel {
  return {
    name: 'cnn_classifier', backend: 'onnxruntime', platform: 'onnxruntime_onnx',
    config: {
      max_batch_size: 16,
      dynamic_batching: { max_queue_delay_microseconds: 500 },
      instance_group: [{ name: 'cnn_classifier_0', kind: 'KIND_CPU', count }],
      input: [{ name: 'image', data_type: 'TYPE_FP32', dims: [3, 64, 64] }],
      output: [{ name: 'logits', data_type: 'TYPE_FP32', dims: [10] }],
    },
    cost: { fixedUs: 10, perItemUs: 300 },
    memory: { weights: 0.4 * MiB, workspace: 96 * MiB, activationsPerItem: 3 * MiB },
    files: [{ path: 'cnn_classifier/config.pbtxt', bytes: 388 }, { path: 'cnn_classifier/1/model.onnx', bytes: 412_000 }],
    ...over,
  };
}

export function mlpTensorRT(): SimModel {
  const base = mlp({}, { max_queue_delay_microseconds: 200 });
  return {
    ...base,
    name: 'mlp_tensorrt', backend: 'tensorrt', platform: 'tensorrt_plan',
    config: { ...base.config, instance_group: [{ name: 'mlp_tensorrt_0', kind: 'KIND_GPU', count: 1 }] },
    cost: { fixedUs: 60, perItemUs: 0.8 },
    memory: { weights: 1.4 * MiB, workspace: 64 * MiB, activationsPerItem: 0.05 * MiB },
    files: [{ path: 'mlp_tensorrt/config.pbtxt', bytes: 398 }, { path: 'mlp_tensorrt/1/model.plan', bytes: 1_510_000 }],
    device: 'gpu0 (modelled)',
  };
}

export { MiB };
