/**
 * A config checked against what the model file declares (names, datatypes, shapes), as Triton's backends
 * do once they have read the file. Pure, so the server's load and the lesson that teaches the rule (where
 * the bundled model's signature is known without its file) give the same message.
 */
import type { ModelConfig, ModelInput, ModelOutput } from './types';

export interface TensorSignature {
  name: string;
  /** the Triton datatype (TYPE_FP32 ...), or the framework's own name when Triton has none */
  type: string;
  /** -1 for a dynamic dimension */
  dims: readonly number[];
}

export interface ModelSignature {
  inputs: readonly TensorSignature[];
  outputs: readonly TensorSignature[];
}

/** Triton's shape spelling in messages: [-1,784]. */
export const shapeText = (dims: readonly number[]): string => `[${dims.join(',')}]`;

/** The shape the model sees for a config tensor: the batch dimension in front, reshape applied. */
export function fullConfigShape(io: ModelInput | ModelOutput, batching: boolean): number[] {
  const dims = io.reshape ? (io.reshape.shape ?? []) : (io.dims ?? []);
  return batching ? [-1, ...dims] : [...dims];
}

function shapesAgree(model: readonly number[], config: readonly number[]): boolean {
  // A dynamic model dim accepts whatever the config fixes; a fixed model dim must be matched exactly.
  return model.length === config.length && model.every((m, i) => m === -1 || m === config[i]);
}

/**
 * The first contradiction between the config and the model's signature, in Triton's words (its backends'
 * CompareDims message for shapes), or undefined when they agree.
 */
export function configSignatureMismatch(sig: ModelSignature, config: ModelConfig, modelName = config.name ?? 'model'): string | undefined {
  const batching = (config.max_batch_size ?? 0) > 0;
  const check = (kind: 'input' | 'output', ios: readonly (ModelInput | ModelOutput)[], model: readonly TensorSignature[]): string | undefined => {
    const byName = new Map(model.map((t) => [t.name, t]));
    for (const io of ios) {
      const name = io.name ?? '';
      const m = byName.get(name);
      if (!m) {
        return `unable to load model '${modelName}': configuration has ${kind} '${name}' but the model's ${kind}s are: ${model.map((t) => t.name).join(', ')}`;
      }
      if (m.type !== io.data_type) {
        return `unable to load model '${modelName}': unexpected datatype ${io.data_type} for ${kind} '${name}', model expects ${m.type}`;
      }
      const full = fullConfigShape(io, batching);
      if (!shapesAgree(m.dims, full)) {
        const specified = batching
          ? `${full.length} dimensions (an initial batch dimension because max_batch_size > 0 followed by the explicit tensor shape, making complete shape ${shapeText(full)})`
          : `${full.length} dimensions (shape ${shapeText(full)})`;
        return `model '${modelName}', tensor '${name}': the model expects ${m.dims.length} dimensions (shape ${shapeText(m.dims)}) but the model configuration specifies ${specified}`;
      }
    }
    return undefined;
  };
  const mismatch = check('input', config.input ?? [], sig.inputs) ?? check('output', config.output ?? [], sig.outputs);
  if (mismatch) return mismatch;
  const configured = new Set((config.input ?? []).map((i) => i.name));
  const missing = sig.inputs.filter((t) => !configured.has(t.name));
  if (missing.length > 0) {
    return `unable to load model '${modelName}': configuration expects ${configured.size} inputs, model provides ${sig.inputs.length} (missing: ${missing.map((t) => t.name).join(', ')})`;
  }
  return undefined;
}
