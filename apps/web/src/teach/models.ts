/**
 * Simulated models for the lessons. The ONNX models' costs are the tables `inferscope calibrate` measured
 * (core's sim/calibrations: the MLP memory-bound, the CNN compute-bound, the MLP's TorchScript twin on
 * the pytorch backend); the course demo's model is modelled, and labelled so (`measured: false`).
 */
import { bundledCalibration, costFromCalibration, type CostModel } from '@inferscope/core/sim';
import type { SimModel } from './sim-types';
import { calibrationFor } from './calibrations';

/** The jitter of the live lessons: measured medians, +-5% so batches do not all take the same time. */
const JITTER = 0.05;

/**
 * The calibrated cost of a bundled model: through the server (`server`, hand-off to the worker included,
 * what a request really waits for) or the backend's compute alone (`session`, onnxruntime's session.run;
 * a live calibration has no session table, so the shipped one stands in there).
 */
export function measuredCost(model: string, which: 'server' | 'session' = 'server', jitter = JITTER): CostModel {
  // the live server's own calibration when this page has one (calibrations.ts), else the shipped one
  const cal = calibrationFor(model)?.cal;
  if (!cal) throw new Error(`no calibration for ${model}`);
  // the lessons simulate the medians (with the small jitter above for the playback): a shared machine's
  // measured spread has tails that would make every lesson's p99 a story about the machine
  const c = costFromCalibration(cal, jitter, false);
  const session = cal.session_us ?? bundledCalibration(model)?.session_us;
  if (which !== 'session' || !session) return c;
  // The backend's compute alone has no hand-off to hide, so no held table: the server's held times
  // (hand-off included) would stand in for every batch handed over while another computes.
  const { held_table: _held, ...compute } = c;
  return { ...compute, table: { ...session } };
}

/** The host the calibrations were measured on: the lessons simulate it. */
export const CALIBRATION_CORES = bundledCalibration('mlp_classifier')?.host.cpus ?? 2;

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
    cost: measuredCost('mlp_classifier'),
    measured: true,
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
    cost: measuredCost('cnn_classifier'),
    measured: true,
    memory: { weights: 0.4 * MiB, workspace: 96 * MiB, activationsPerItem: 3 * MiB },
    files: [{ path: 'cnn_classifier/config.pbtxt', bytes: 388 }, { path: 'cnn_classifier/1/model.onnx', bytes: 412_000 }],
    ...over,
  };
}

/**
 * mlp_classifier_torch: the same weights as mlp_classifier as TorchScript, served by the pytorch backend (a
 * stub process per instance, like Triton's python backend stub). Its cost is measured too
 * (`inferscope calibrate`): torch's forward alone, and through the server with the process hop.
 */
export function mlpTorch(db: Record<string, unknown> = { max_queue_delay_microseconds: 200 }): SimModel {
  const base = mlp({}, db);
  return {
    ...base,
    name: 'mlp_classifier_torch', backend: 'pytorch', platform: 'pytorch_libtorch',
    config: { ...base.config, instance_group: [{ name: 'mlp_classifier_torch_0', kind: 'KIND_CPU', count: 1 }] },
    cost: measuredCost('mlp_classifier_torch'),
    measured: true,
    // the stub process holds its own interpreter and torch (~230 MiB resident, see the model's config.pbtxt)
    memory: { weights: 2.7 * MiB, workspace: 230 * MiB, activationsPerItem: 0.05 * MiB },
    files: [{ path: 'mlp_classifier_torch/config.pbtxt', bytes: 1794 }, { path: 'mlp_classifier_torch/1/model.pt', bytes: 2_686_074 }],
  };
}

/** The course demo's model: any batch takes process_time (0.2 s) whatever its size (the course's figure, modelled). */
export function courseModel(delayUs: number, maxBatch: number): SimModel {
  return {
    name: 'course_demo', backend: 'python', platform: '',
    config: {
      max_batch_size: maxBatch,
      dynamic_batching: { max_queue_delay_microseconds: delayUs },
      instance_group: [{ name: 'course_demo_0', kind: 'KIND_CPU', count: 1 }],
      input: [{ name: 'input', data_type: 'TYPE_FP32', dims: [1] }],
      output: [{ name: 'output', data_type: 'TYPE_FP32', dims: [1] }],
    },
    // no kind: the demo's "work" is a sleep in the course's script, it does not share the cores
    cost: { fixed_us: 200_000, per_item_us: 0 },
    measured: false,
    memory: { weights: 0, workspace: MiB, activationsPerItem: 0 },
    files: [{ path: 'course_demo/config.pbtxt', bytes: 300 }, { path: 'course_demo/1/model.py', bytes: 900 }],
  };
}

/**
 * token_streamer (model_repository/token_streamer): the decoupled python model of the streaming lesson. Its
 * instance is busy only while execute() hands each request to a thread of its own (the tokens then flow
 * from that thread, 60 ms a step, the instance free): modelled, not calibrated, at the python stub's hop
 * plus starting a thread.
 */
export function tokenStreamer(): SimModel {
  return {
    name: 'token_streamer', backend: 'python', platform: '',
    config: {
      max_batch_size: 0,
      instance_group: [{ name: 'token_streamer_0', kind: 'KIND_CPU', count: 1 }],
      input: [{ name: 'text_input', data_type: 'TYPE_STRING', dims: [1] }, { name: 'max_tokens', data_type: 'TYPE_INT32', dims: [1], optional: true }],
      output: [{ name: 'text_output', data_type: 'TYPE_STRING', dims: [1] }],
    },
    cost: { fixed_us: 400, per_item_us: 0 },
    measured: false,
    memory: { weights: 0, workspace: 36 * MiB, activationsPerItem: 0 },
    files: [{ path: 'token_streamer/config.pbtxt', bytes: 2100 }, { path: 'token_streamer/1/model.py', bytes: 3600 }],
  };
}

export { MiB };
