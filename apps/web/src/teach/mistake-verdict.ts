/**
 * Lesson 2's verdict on a config text for the bundled MLP: core's config engine (the parser and validator
 * the server runs), what InferScope does not serve, then the model file's signature as the server checks it
 * once the file is read: a config Triton's parser accepts can still be refused at load (dims that repeat
 * the batch dimension), and the lesson must not call it valid.
 */
import { configSignatureMismatch, formatIssue, loadModelConfig } from '@inferscope/core/config';
import { BUNDLED_SIGNATURES } from './bundled-signatures';

/** The example texts; their titles are in the language tables (S.mistakes.examples, same order). */
export const MISTAKE_EXAMPLES: { text: string }[] = [
  {
    text: 'name: "mlp_classifier"\nplatform: "onnxruntime_onnx"\nmax_batch_size: 32\ninput [{ name: "input" data_type: TYPE_FP32 dims: [1, 784] }]\noutput [{ name: "probabilities" data_type: TYPE_FP32 dims: [10] }]\n',
  },
  {
    text: 'name: "mlp_classifier"\nplatform: "onnxruntime_onnx"\nmax_batch_size: 8\ninput [{ name: "input" data_type: TYPE_FP32 dims: [784] }]\noutput [{ name: "probabilities" data_type: TYPE_FP32 dims: [10] }]\ndynamic_batching { preferred_batch_size: [16] }\n',
  },
  {
    text: 'name: "mlp_classifier"\nplatform: "onnxruntime_onnx"\nmax_batch_size: 8\ninput [{ name: "input" data_type: TYPE_FP32 dim: [784] }]\n',
  },
  {
    text: 'name: "mlp"\nplatform: "onnxruntime_onnx"\nmax_batch_size: 8\ninput [{ name: "input" data_type: TYPE_FP32 dims: [784] }]\noutput [{ name: "probabilities" data_type: TYPE_FP32 dims: [10] }]\n',
  },
  {
    text: 'name: "mlp_classifier"\nplatform: "tensorrt_plan"\nbackend: "onnxruntime"\nmax_batch_size: 8\ninput [{ name: "input" data_type: TYPE_FP32 dims: [784] }]\noutput [{ name: "probabilities" data_type: TYPE_FP32 dims: [10] }]\n',
  },
];

export interface MistakeVerdict {
  ok: boolean;
  message: string;
}

export function mistakeVerdict(text: string, validText: string): MistakeVerdict {
  try {
    const r = loadModelConfig(text, { modelName: 'mlp_classifier', gpuCount: 0 });
    if (r.error) return { ok: false, message: formatIssue(r.error) };
    if (r.unserved[0]) return { ok: false, message: formatIssue(r.unserved[0]) };
    const mismatch = configSignatureMismatch(BUNDLED_SIGNATURES.mlp_classifier!, r.config!, 'mlp_classifier');
    // config check's beginner hint for the same mistake, when it has one
    const hint = r.advice.find((a) => a.hint)?.hint;
    if (mismatch) return { ok: false, message: hint ? `${mismatch}; hint: ${hint}` : mismatch };
    return { ok: true, message: validText };
  } catch (err) {
    return { ok: false, message: err instanceof Error ? err.message : String(err) };
  }
}
