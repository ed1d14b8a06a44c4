/**
 * Config auto-complete for ONNX models, following what Triton's onnxruntime backend does when
 * strict_model_config is false:
 * - no inputs (outputs) in the config -> every model input (output) is added with its type and shape;
 * - max_batch_size absent/0 and every model input and output has a dynamic first dimension -> the model
 *   can batch: max_batch_size becomes DEFAULT_MAX_BATCH_SIZE (Triton's default-max-batch-size, 4) and an
 *   empty dynamic_batching {} is added when no scheduler is configured;
 * - max_batch_size > 0 on a model whose first dimension is fixed -> refused.
 * Whatever was filled or written, the result is then checked against the model: names, datatypes and
 * shapes must agree, and a contradiction is refused with both shapes in the message.
 */
import { configSignatureMismatch, shapeText, type ModelConfig, type ModelInput, type ModelOutput, type ModelSignature } from '@inferscope/core/config';
import { readOnnxSignature, type OnnxSignature, type OnnxTensorSignature } from './onnx-signature';
import { withSequenceTensors } from '../sequence-inputs';

export const DEFAULT_MAX_BATCH_SIZE = 4;

export interface AutoCompleteResult {
  config: ModelConfig;
  /** one line per field that was filled in, for the log */
  filled: string[];
}

function supportsBatching(sig: OnnxSignature): boolean {
  const all = [...sig.inputs, ...sig.outputs];
  return all.length > 0 && all.every((t) => t.dims.length > 0 && t.dims[0] === -1);
}

/** The user wrote full model-rank dims on a tensor: they describe the model as non-batching. */
function configGivesFullRank(config: ModelConfig, sig: OnnxSignature): boolean {
  const byName = new Map([...sig.inputs, ...sig.outputs].map((t) => [t.name, t]));
  return [...(config.input ?? []), ...(config.output ?? [])].some((io) => {
    const model = byName.get(io.name ?? '');
    return model !== undefined && (io.dims ?? []).length === model.dims.length;
  });
}

function fromSignature(t: OnnxTensorSignature, batching: boolean, model: string): ModelInput & ModelOutput {
  if (!t.data_type) {
    throw new Error(`autofill failed for model '${model}': tensor '${t.name}' has ONNX type ${t.onnx_type}, which Triton cannot serve`);
  }
  const dims = batching ? t.dims.slice(1) : [...t.dims];
  // A tensor that is a scalar per sample has no dims left: Triton writes dims [1] with an empty reshape.
  if (dims.length === 0) return { name: t.name, data_type: t.data_type, dims: [1], ...(batching ? { reshape: { shape: [] } } : {}) };
  return { name: t.name, data_type: t.data_type, dims };
}

export function autoCompleteFromSignature(
  sig: OnnxSignature,
  input: ModelConfig,
  modelName = input.name ?? 'model',
): AutoCompleteResult {
  const config: ModelConfig = structuredClone(input);
  const filled: string[] = [];
  const canBatch = supportsBatching(sig);
  const mbs = config.max_batch_size ?? 0;

  if (mbs === 0 && canBatch && !configGivesFullRank(config, sig)) {
    config.max_batch_size = DEFAULT_MAX_BATCH_SIZE;
    filled.push(
      `max_batch_size: ${DEFAULT_MAX_BATCH_SIZE} (the model's first dimension is dynamic; set max_batch_size to allow larger batches)`,
    );
    if (!config.dynamic_batching && !config.sequence_batching) {
      config.dynamic_batching = {};
      filled.push('dynamic_batching {} (the model supports batching)');
    }
  } else if (mbs > 0 && !canBatch) {
    throw new Error(
      `autofill failed for model '${modelName}': model does not support batching while non-zero max_batch_size is specified ` +
        `(every input and output of the model needs a dynamic first dimension; model inputs: ${describe(sig.inputs)})`,
    );
  }
  const batching = (config.max_batch_size ?? 0) > 0;

  // a stateful model's control and state tensors are the sequence batcher's to feed, never the client's
  const fed = withSequenceTensors({ ...config, input: [], output: [] });
  const batcherFeeds = new Set([...(fed.input ?? []), ...(fed.output ?? [])].map((t) => t.name));
  if (!config.input || config.input.length === 0) {
    const ins = sig.inputs.filter((t) => !batcherFeeds.has(t.name));
    config.input = ins.map((t) => fromSignature(t, batching, modelName));
    filled.push(`input: ${describe(ins)}`);
  }
  if (!config.output || config.output.length === 0) {
    const outs = sig.outputs.filter((t) => !batcherFeeds.has(t.name));
    config.output = outs.map((t) => fromSignature(t, batching, modelName));
    filled.push(`output: ${describe(outs)}`);
  }
  checkConfigAgainstModel(sig, withSequenceTensors(config), modelName);
  return { config, filled };
}

/** Reads the model's signature from the file and auto-completes `config` from it. */
export function autoCompleteConfig(modelFile: string, config: ModelConfig): AutoCompleteResult {
  return autoCompleteFromSignature(readOnnxSignature(modelFile), config);
}

function describe(ts: readonly OnnxTensorSignature[]): string {
  return ts.map((t) => `${t.name} ${t.data_type ?? t.onnx_type} ${shapeText(t.dims)}`).join(', ');
}

/** The model file's signature in core's terms (a type ONNX has and Triton does not keeps ONNX's name). */
export function modelSignatureOf(sig: OnnxSignature): ModelSignature {
  const tensor = (t: OnnxTensorSignature) => ({ name: t.name, type: t.data_type ?? t.onnx_type, dims: t.dims });
  return { inputs: sig.inputs.map(tensor), outputs: sig.outputs.map(tensor) };
}

/** Throws when the config contradicts the model: unknown names, other datatypes, other shapes. */
export function checkConfigAgainstModel(sig: OnnxSignature, config: ModelConfig, modelName = config.name ?? 'model'): void {
  const mismatch = configSignatureMismatch(modelSignatureOf(sig), config, modelName);
  if (mismatch) throw new Error(mismatch);
}
