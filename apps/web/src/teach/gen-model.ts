/**
 * tiny_lm_generate as teaching mode's simulated server serves it: the bundled config
 * (model_repository/tiny_lm_generate/config.pbtxt, its parameters the knobs; a test parses the file and
 * compares), the step signature its KV blocks are sized from (bundled-signatures.ts, checked against the
 * model file), and its knobs read by the load's rules (core `iterativeSetupFromConfig`) with the memory
 * the server gives the KV cache when no --memory-budget is set (core `unbudgetedKvBytes`: every slot its
 * longest sequence), capped by max_tokens_in_paged_kv_cache. So a knob the server
 * refuses at load or live is refused here in the same words.
 */
import { normalizeModelConfig, type ModelConfig, type ModelInput, type ModelOutput, type ModelSignature } from '@inferscope/core/config';
import { iterativeSetupFromConfig, ITERATIVE_PARAMETERS, MAX_SEQ_LEN, readMaxSeqLen, unbudgetedKvBytes, type IterativeSetup } from '@inferscope/core/iterative';
import { BUNDLED_SIGNATURES } from './bundled-signatures';

export const GEN_MODEL = 'tiny_lm_generate';

const param = (v: string) => ({ string_value: v });

/** The bundled config.pbtxt, as written (the file's comments say what each part is). */
export function tinyLmGenerateConfig(): ModelConfig {
  return {
    name: GEN_MODEL,
    backend: 'onnxruntime',
    max_batch_size: 0,
    model_transaction_policy: { decoupled: true },
    sequence_batching: { iterative_sequence: true },
    input: [
      { name: 'text_input', data_type: 'TYPE_STRING', dims: [1] },
      { name: 'max_tokens', data_type: 'TYPE_INT32', dims: [1], optional: true },
      { name: 'stream', data_type: 'TYPE_BOOL', dims: [1], optional: true },
    ],
    output: [{ name: 'text_output', data_type: 'TYPE_STRING', dims: [1] }],
    instance_group: [{ count: 1, kind: 'KIND_CPU' }],
    parameters: {
      [MAX_SEQ_LEN]: param('256'),
      [ITERATIVE_PARAMETERS.maxNumSequences]: param('8'),
      [ITERATIVE_PARAMETERS.maxNumTokens]: param('256'),
      [ITERATIVE_PARAMETERS.policy]: param('guaranteed_no_evict'),
      [ITERATIVE_PARAMETERS.enableChunkedContext]: param('false'),
      [ITERATIVE_PARAMETERS.blockTokens]: param('16'),
      [ITERATIVE_PARAMETERS.maxKvTokens]: param('4096'),
      intra_op_thread_count: param('1'),
    },
  } as ModelConfig;
}

/** The config as the server reports a loaded version's: normalised with Triton's defaults. */
export function loadedGenConfig(): ModelConfig {
  return normalizeModelConfig(tinyLmGenerateConfig(), { modelName: GEN_MODEL, gpuCount: 0 });
}

/** The step config the KV cache is read from: the file's step signature (max_batch_size 0: a step's rows are the file's batch dimension). */
function stepConfig(config: ModelConfig, sig: ModelSignature = BUNDLED_SIGNATURES[GEN_MODEL]!): ModelConfig {
  const tensor = (t: ModelSignature['inputs'][number]) => ({ name: t.name, data_type: t.type, dims: t.dims });
  return {
    name: config.name, max_batch_size: 0, parameters: config.parameters,
    input: sig.inputs.map(tensor) as ModelInput[], output: sig.outputs.map(tensor) as ModelOutput[],
  } as ModelConfig;
}

/** prompt + generated tokens at most (the config's max_seq_len) */
export function maxSeqLen(config: ModelConfig): number {
  const n = readMaxSeqLen(config);
  if (typeof n !== 'number') throw new Error(n.error);
  return n;
}

/**
 * The knobs and KV plan of `config` by the load's rules, or an Error naming every problem (the server's
 * words). The KV memory: no budget in teaching mode, so every slot its longest sequence.
 */
export function genSetupFor(config: ModelConfig): IterativeSetup {
  const step = stepConfig(config);
  const longest = maxSeqLen(config);
  const got = iterativeSetupFromConfig(step, { kvBudgetBytes: unbudgetedKvBytes(step, longest), maxSequenceTokens: longest });
  if ('problems' in got) throw new Error(got.problems.join('; '));
  return got.setup;
}
