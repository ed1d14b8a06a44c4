/**
 * Fills a parsed config with the defaults Triton fills before it validates and serves a model, so the
 * result equals what Triton's `GET /v2/models/{m}/config` shows. Learned from triton core's
 * model_config_utils.cc (AutoCompleteBackendFields, NormalizeModelConfig, NormalizeInstanceGroup,
 * SetDefaultInstanceCount); the input is never modified.
 */
import { BACKEND, MODEL_FILENAME, PLATFORM } from './platforms';
import type { ModelConfig, ModelInstanceGroup } from './types';

export interface NormalizeOptions {
  /** the model's folder name: the name when the config has none */
  modelName: string;
  /** GPUs on the host (ids 0..gpuCount-1): KIND_AUTO resolves against them, KIND_GPU gets all of them */
  gpuCount: number;
  /**
   * Entries of the model's first version folder. When given, platform/backend are guessed from the model
   * file the way Triton does when config.pbtxt names neither (e.g. a `model.onnx` file -> onnxruntime).
   */
  versionEntries?: readonly { name: string; isDirectory: boolean }[];
}

/** Triton's default idle time for a sequence (SEQUENCE_IDLE_DEFAULT_MICROSECONDS). */
export const SEQUENCE_IDLE_DEFAULT_MICROSECONDS = 1_000_000;

export function normalizeModelConfig(cfg: ModelConfig, opts: NormalizeOptions): ModelConfig {
  const config = structuredClone(cfg);
  autoCompleteBackendFields(config, opts);
  normalizeSchedulingAndPolicies(config);
  normalizeInstanceGroups(config, opts.gpuCount);
  return config;
}

/** Name, platform, backend and default_model_filename, as Triton's server-side auto-complete. */
function autoCompleteBackendFields(config: ModelConfig, opts: NormalizeOptions): void {
  if (!config.name) config.name = opts.modelName;
  const entries = opts.versionEntries;
  const has = (file: string, directory?: boolean) =>
    entries?.some((e) => e.name === file && (directory === undefined || e.isDirectory === directory)) ?? false;
  const nothingGiven = () => !config.platform && !config.default_model_filename && entries !== undefined;

  // TensorFlow: the platform decides, guessed from the file name when missing.
  if (!config.platform && (!config.backend || config.backend === BACKEND.tensorflow)) {
    if (config.default_model_filename === MODEL_FILENAME.tensorflowSavedModel) {
      config.platform = PLATFORM.tensorflowSavedModel;
    } else if (config.default_model_filename === MODEL_FILENAME.tensorflowGraphDef) {
      config.platform = PLATFORM.tensorflowGraphDef;
    } else if (!config.default_model_filename && entries) {
      if (has(MODEL_FILENAME.tensorflowSavedModel, true)) config.platform = PLATFORM.tensorflowSavedModel;
      if (has(MODEL_FILENAME.tensorflowGraphDef, false)) config.platform = PLATFORM.tensorflowGraphDef;
    }
  }
  if (config.platform === PLATFORM.tensorflowSavedModel || config.platform === PLATFORM.tensorflowGraphDef) {
    config.backend ||= BACKEND.tensorflow;
    config.default_model_filename ||=
      config.platform === PLATFORM.tensorflowSavedModel ? MODEL_FILENAME.tensorflowSavedModel : MODEL_FILENAME.tensorflowGraphDef;
    return;
  }

  // TensorRT
  if (!config.backend) {
    if (config.platform === PLATFORM.tensorrtPlan || config.default_model_filename === MODEL_FILENAME.tensorrtPlan) {
      config.backend = BACKEND.tensorrt;
    } else if (nothingGiven() && has(MODEL_FILENAME.tensorrtPlan, false)) {
      config.backend = BACKEND.tensorrt;
    }
  }
  if (config.backend === BACKEND.tensorrt) {
    config.platform ||= PLATFORM.tensorrtPlan;
    config.default_model_filename ||= MODEL_FILENAME.tensorrtPlan;
    return;
  }

  // ONNX Runtime (an ONNX model may be a file or, when large, a folder)
  if (!config.backend) {
    if (config.platform === PLATFORM.onnxruntimeOnnx || config.default_model_filename === MODEL_FILENAME.onnx) {
      config.backend = BACKEND.onnxruntime;
    } else if (nothingGiven() && has(MODEL_FILENAME.onnx)) {
      config.backend = BACKEND.onnxruntime;
    }
  }
  if (config.backend === BACKEND.onnxruntime) {
    config.platform ||= PLATFORM.onnxruntimeOnnx;
    config.default_model_filename ||= MODEL_FILENAME.onnx;
    return;
  }

  // OpenVINO
  if (!config.backend) {
    if (config.default_model_filename === MODEL_FILENAME.openvino) config.backend = BACKEND.openvino;
    else if (nothingGiven() && has(MODEL_FILENAME.openvino)) config.backend = BACKEND.openvino;
  }
  if (config.backend === BACKEND.openvino) {
    config.default_model_filename ||= MODEL_FILENAME.openvino;
    return;
  }

  // PyTorch (TorchScript, or AOTInductor packages)
  if (!config.backend) {
    if (
      config.platform === PLATFORM.pytorchLibTorch || config.platform === PLATFORM.pytorchLibTorchAlt ||
      config.default_model_filename === MODEL_FILENAME.pytorch ||
      config.platform === PLATFORM.pytorchAoti || config.default_model_filename === MODEL_FILENAME.pytorchAoti
    ) {
      config.backend = BACKEND.pytorch;
    } else if (nothingGiven() && has(MODEL_FILENAME.pytorch, false)) {
      config.backend = BACKEND.pytorch;
      config.platform = PLATFORM.pytorchLibTorch;
    } else if (nothingGiven() && has(MODEL_FILENAME.pytorchAoti, false)) {
      config.backend = BACKEND.pytorch;
      config.platform = PLATFORM.pytorchAoti;
    }
  }
  if (config.backend === BACKEND.pytorch) {
    if (!config.platform) {
      config.platform = PLATFORM.pytorchLibTorch;
      config.default_model_filename ||= MODEL_FILENAME.pytorch;
    } else if (config.platform === PLATFORM.pytorchAoti) {
      config.default_model_filename ||= MODEL_FILENAME.pytorchAoti;
    }
    return;
  }

  // Python
  if (!config.backend) {
    if (config.default_model_filename === MODEL_FILENAME.python) config.backend = BACKEND.python;
    else if (nothingGiven() && has(MODEL_FILENAME.python)) config.backend = BACKEND.python;
  }
  if (config.backend === BACKEND.python) {
    config.default_model_filename ||= MODEL_FILENAME.python;
    return;
  }

  // Custom backend named by the folder: 'model.identity' -> backend 'identity'. Without a '.', Triton
  // refuses the model; the validator reports that (normalisation never throws).
  if (!config.backend && !config.platform && !config.default_model_filename) {
    const dot = opts.modelName.indexOf('.');
    if (dot >= 0) {
      const backend = opts.modelName.slice(dot + 1);
      config.backend = backend;
      config.default_model_filename = `model.${backend}`;
    }
  }
}

/**
 * Triton's rule for a batcher without preferred sizes: max_batch_size is the preferred size (none when it
 * is 0). The one statement of it: normalisation here, live changes (scheduler/reconfigure.ts) and the
 * simulator read it from this function.
 */
export function preferredOrDefault(preferred: readonly number[] | undefined, maxBatchSize: number): number[] {
  if (preferred !== undefined && preferred.length > 0) return [...preferred];
  return maxBatchSize > 0 ? [maxBatchSize] : [];
}

/** Triton's NormalizeModelConfig: version policy, preferred sizes, sequence idle time, pinned memory. */
function normalizeSchedulingAndPolicies(config: ModelConfig): void {
  if (!config.version_policy) config.version_policy = { latest: { num_versions: 1 } };
  const maxBatch = config.max_batch_size ?? 0;

  const db = config.dynamic_batching;
  if (db && (db.preferred_batch_size ?? []).length === 0) db.preferred_batch_size = preferredOrDefault(db.preferred_batch_size, maxBatch);

  const sb = config.sequence_batching;
  if (sb) {
    if (!sb.max_sequence_idle_microseconds) sb.max_sequence_idle_microseconds = SEQUENCE_IDLE_DEFAULT_MICROSECONDS;
    if (sb.oldest && (sb.oldest.preferred_batch_size ?? []).length === 0) {
      sb.oldest.preferred_batch_size = preferredOrDefault(sb.oldest.preferred_batch_size, maxBatch);
    }
  }

  if (!config.ensemble_scheduling) {
    const optimization = (config.optimization ??= {});
    optimization.input_pinned_memory ??= { enable: true };
    optimization.output_pinned_memory ??= { enable: true };
  }
}

/** Triton's NormalizeInstanceGroup (without backend-preferred groups, which no backend of ours sets). */
function normalizeInstanceGroups(config: ModelConfig, gpuCount: number): void {
  if (config.ensemble_scheduling) return;
  const gpus = Array.from({ length: Math.max(0, Math.floor(gpuCount)) }, (_, i) => i);

  if (!config.instance_group || config.instance_group.length === 0) {
    // The default group is named after the model itself (not <model>_0), as Triton does.
    config.instance_group = [{ name: config.name ?? '' }];
  }
  config.instance_group.forEach((group, index) => {
    if (!group.name) group.name = `${config.name}_${index}`;
    const kind = group.kind ?? 'KIND_AUTO';
    if (kind === 'KIND_AUTO') {
      // GPU only when there are GPUs and every listed id exists; otherwise CPU.
      const listed = group.gpus ?? [];
      const allPresent = listed.every((id) => gpus.includes(id));
      group.kind = gpus.length > 0 && allPresent ? 'KIND_GPU' : 'KIND_CPU';
    } else {
      group.kind = kind;
    }
    if ((group.count ?? 0) < 1) group.count = defaultInstanceCount(group, config.backend);
    if (group.kind === 'KIND_GPU' && (group.gpus ?? []).length === 0) group.gpus = [...gpus];
  });
}

/**
 * Triton's SetDefaultInstanceCount: 1, except 2 CPU instances for the TensorFlow and ONNX Runtime
 * backends (they scale with instances; PyTorch and OpenVINO carry too much per-instance overhead).
 */
function defaultInstanceCount(group: ModelInstanceGroup, backend: string | undefined): number {
  const twoOnCpu = backend === BACKEND.tensorflow || backend === BACKEND.onnxruntime;
  return group.kind === 'KIND_CPU' && twoOnCpu ? 2 : 1;
}
