/**
 * The loader's check of a generative model served by Triton's iterative sequences
 * (`sequence_batching { iterative_sequence: true }`, decoupled): two signatures, each checked where it is
 * right.
 *
 * - The config's `input` / `output` are what a CLIENT sends and gets: `text_input` (BYTES, one prompt),
 *   optional `max_tokens` (INT32) and `stream` (BOOL) -> `text_output` (BYTES), the names of Triton's
 *   tensorrtllm_backend ensemble. The server validates every request against them as for any model, and
 *   the iterative scheduler reads them (generate-io.ts). The model file is never fed them.
 * - The ONNX file has the STEP signature (input_ids, position_ids, attention_mask, past_* -> logits,
 *   present_*; kv-cache's KV_STEP_TENSORS): only the step executor feeds it, with tensors built from the
 *   KV blocks. So the backend's instance is loaded with a config derived from the FILE's signature
 *   (`instanceConfig`, max_batch_size 0: a step's rows are the batch dimension the file declares), and
 *   kv-cache reads the cache's shape from that.
 *
 * Checking the client's config against the file, as the onnxruntime backend does for every other model,
 * would refuse every generative model; not checking the file would load a model without a KV cache that
 * fails at its first step. The vocabulary must be byte-level (256 byte values, optionally one end token
 * 256 = TensorRT-LLM's end_id): InferScope has no tokenizer, a prompt's UTF-8 bytes are its token ids.
 */
import { isDecoupled, type DataType, type ModelConfig, type ModelInput, type ModelOutput } from '@inferscope/core/config';
import { readMaxSeqLen } from '@inferscope/core/iterative';
import { KV_STEP_TENSORS } from '@inferscope/core/kv-cache';
import { groupsFromConfig, instancesInGroup } from '@inferscope/core/scheduler';

/** A tensor of the model file's signature (the onnxruntime backend's reader gives these). */
export interface FileTensor {
  name: string;
  /** Triton's type; undefined when the file's type has none */
  data_type: DataType | undefined;
  onnx_type: string;
  /** -1 = dynamic */
  dims: number[];
}
type OnnxTensorSignature = FileTensor;

/** The client-facing tensors (Triton tensorrtllm_backend's names). */
export const GENERATE_IO = { text: 'text_input', maxTokens: 'max_tokens', stream: 'stream', output: 'text_output' } as const;

const BYTE_VOCAB = 256;

export interface GenerativeModel {
  /** what the backend's instance is loaded with: the file's step signature, the user's instances and parameters */
  instanceConfig: ModelConfig;
  vocab: number;
  /** the end token (TensorRT-LLM's end_id) when the vocabulary has one */
  endToken?: number;
  /** prompt + generated tokens at most (max_seq_len) */
  maxSeqLen: number;
}

const CLIENT_INPUTS: Record<string, { type: DataType; optional: boolean }> = {
  [GENERATE_IO.text]: { type: 'TYPE_STRING', optional: false },
  [GENERATE_IO.maxTokens]: { type: 'TYPE_INT32', optional: true },
  [GENERATE_IO.stream]: { type: 'TYPE_BOOL', optional: true },
};

/** The model's check; throws an Error naming every problem (the version's UNAVAILABLE reason). */
export function generativeModelOf(sig: { inputs: readonly FileTensor[]; outputs: readonly FileTensor[] }, config: ModelConfig): GenerativeModel {
  const name = config.name ?? '';
  const problems: string[] = [];
  // One response per token needs a decoupled model; Triton requires it for iterative sequences too.
  if (!isDecoupled(config)) problems.push("iterative_sequence needs a decoupled model (model_transaction_policy { decoupled: true }): it sends one response per token");
  problems.push(...clientSignatureProblems(config));
  // The sequence batcher's own fields mean nothing to an iterative model (one request per sequence, its
  // state the KV cache): set, they would be parsed and ignored, so they are refused. Normalisation sets
  // max_sequence_idle_microseconds on every config, and an iterative sequence is never idle between steps.
  const sequence = config.sequence_batching as Record<string, unknown> | undefined;
  for (const f of ['direct', 'oldest', 'control_input', 'state']) {
    const v = sequence?.[f];
    if (v !== undefined && !(Array.isArray(v) && v.length === 0)) problems.push(`sequence_batching.${f} is the sequence batcher's and is not read with iterative_sequence: remove it`);
  }
  const instances = groupsFromConfig(name, config.instance_group).reduce((n, g) => n + instancesInGroup(g), 0);
  // One step loop owns the KV cache: its steps run on one instance, one after another.
  if (instances !== 1) problems.push(`an iterative model runs its steps on one instance (instance_group count 1), not ${instances}`);
  const seq = readMaxSeqLen(config);
  const maxSeqLen = typeof seq === 'number' ? seq : 0;
  if (typeof seq !== 'number') problems.push(seq.error);
  const step = stepSignatureProblems(sig.inputs, sig.outputs);
  problems.push(...step.problems);
  if (problems.length > 0) throw new Error(`model '${name}' (iterative sequences): ${problems.join('; ')}`);
  const tensor = (t: OnnxTensorSignature) => ({ name: t.name, data_type: t.data_type!, dims: t.dims });
  const instanceConfig: ModelConfig = {
    name: config.name,
    backend: config.backend,
    platform: config.platform,
    max_batch_size: 0,
    input: sig.inputs.map(tensor) as ModelInput[],
    output: sig.outputs.map(tensor) as ModelOutput[],
    instance_group: config.instance_group,
    parameters: config.parameters,
    optimization: config.optimization,
  };
  return { instanceConfig, vocab: step.vocab, ...(step.vocab > BYTE_VOCAB ? { endToken: BYTE_VOCAB } : {}), maxSeqLen };
}

function clientSignatureProblems(config: ModelConfig): string[] {
  const problems: string[] = [];
  const inputs = new Map((config.input ?? []).map((t) => [t.name ?? '', t]));
  for (const [name, want] of Object.entries(CLIENT_INPUTS)) {
    const t = inputs.get(name);
    if (!t) {
      if (!want.optional) problems.push(`input '${name}' (${want.type}) is missing: it is what a client sends`);
      continue;
    }
    if (t.data_type !== want.type) problems.push(`input '${name}' must be ${want.type}, not ${t.data_type}`);
    const elements = (t.dims ?? []).reduce((a, d) => a * d, 1);
    if (elements !== 1) problems.push(`input '${name}' must hold one element (dims [ 1 ]), not [${(t.dims ?? []).join(', ')}]`);
    if (!want.optional && t.optional) problems.push(`input '${name}' cannot be optional`);
  }
  for (const name of inputs.keys()) if (!(name in CLIENT_INPUTS)) problems.push(`input '${name}' is not read by the iterative scheduler (it reads ${Object.keys(CLIENT_INPUTS).join(', ')})`);
  const outputs = config.output ?? [];
  if (outputs.length !== 1 || outputs[0]!.name !== GENERATE_IO.output || outputs[0]!.data_type !== 'TYPE_STRING') {
    problems.push(`the outputs must be exactly '${GENERATE_IO.output}' (TYPE_STRING), not ${outputs.map((o) => `'${o.name}' ${o.data_type}`).join(', ') || 'none'}`);
  }
  if ((config.max_batch_size ?? 0) !== 0) problems.push('max_batch_size must be 0: a request carries one prompt, and the steps are batched by the scheduler (parameter max_num_sequences)');
  return problems;
}

function stepSignatureProblems(inputs: readonly OnnxTensorSignature[], outputs: readonly OnnxTensorSignature[]): { problems: string[]; vocab: number } {
  const problems: string[] = [];
  const N = KV_STEP_TENSORS;
  const names = new Set(inputs.map((t) => t.name));
  for (const n of [N.inputIds, N.positionIds, N.attentionMask, N.pastKey(0), N.pastValue(0)]) {
    if (!names.has(n)) problems.push(`the model file has no input '${n}' (a step model takes ${N.inputIds}, ${N.positionIds}, ${N.attentionMask}, ${N.pastKey(0)}, ${N.pastValue(0)}, ... per layer)`);
  }
  for (const t of [...inputs, ...outputs]) if (!t.data_type) problems.push(`the model file's tensor '${t.name}' has type ${t.onnx_type}, which InferScope cannot serve`);
  const logits = outputs.find((t) => t.name === N.logits);
  const vocab = logits?.dims[logits.dims.length - 1] ?? -1;
  if (!logits) problems.push(`the model file has no output '${N.logits}'`);
  else if (vocab !== BYTE_VOCAB && vocab !== BYTE_VOCAB + 1) {
    problems.push(`the model's vocabulary (last dim of '${N.logits}') is ${vocab}: InferScope serves byte-level models (256 byte values, optionally an end token 256), having no tokenizer`);
  }
  return { problems, vocab };
}
