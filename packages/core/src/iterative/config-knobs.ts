/**
 * A generative model's iteration-level knobs from its config's `parameters`, by TensorRT-LLM's names
 * (its Triton backend's config.pbtxt keys), and its KV cache from the memory it is given: the loader's one
 * call. Either the knobs and the KV plan (the bytes the memory ledger charges), or every reason to refuse
 * the model, worded with the keys the user wrote.
 *
 *   max_num_sequences             sequences per step (default: the config's max_batch_size, 1 when 0)
 *   max_num_tokens                new tokens per step (default: the model's longest sequence, so a whole
 *                                 prompt fits without chunking, as vLLM defaults max_num_batched_tokens)
 *   enable_chunked_context        "true" / "false" (default false, as TensorRT-LLM)
 *   batch_scheduler_policy        guaranteed_no_evict (default, as TensorRT-LLM) / max_utilization
 *   tokens_per_block              tokens per KV block (default 16; a build option in TensorRT-LLM)
 *   max_tokens_in_paged_kv_cache  at most this many tokens of KV cache
 *   gpt_model_type                inflight_fused_batching (default) / inflight_batching: continuous
 *                                 batching; V1: request-level (static) batching, the baseline
 *   kv_cache_free_gpu_mem_fraction  the share (0..1] of the memory given to KV that it may take
 *                                 (default 1 here: InferScope's memory is the budget it is given, not a
 *                                 GPU's free memory; TensorRT-LLM's default is 0.9)
 * As in TensorRT-LLM, when both KV limits are set the smaller wins.
 */
import type { IterativeKnobField } from '../live-config/iterative-knobs';
import type { ModelConfig } from '../config/types';
import { readNumberText, type NumberRule } from '../config/number-text';
import { KV_ADMISSION_POLICIES, kvBudgetProblem, kvBytesPerBlock, kvShapeFromConfig, planKvCache, type KvAdmissionPolicy, type KvPlan } from '../kv-cache/index';
import type { GenBatching, IterativeKnobs } from './types';

export const ITERATIVE_PARAMETERS = {
  maxNumSequences: 'max_num_sequences',
  maxNumTokens: 'max_num_tokens',
  enableChunkedContext: 'enable_chunked_context',
  policy: 'batch_scheduler_policy',
  blockTokens: 'tokens_per_block',
  maxKvTokens: 'max_tokens_in_paged_kv_cache',
  kvFraction: 'kv_cache_free_gpu_mem_fraction',
  batching: 'gpt_model_type',
} as const;

/** TensorRT-LLM's build option for the longest sequence (prompt + generated) the model holds: required. */
export const MAX_SEQ_LEN = 'max_seq_len';
const MAX_SEQ_LEN_RULE: NumberRule = { min: 2, max: 1 << 20 };

/** The config's max_seq_len, or why it cannot be read (missing, or not a whole number in range). */
export function readMaxSeqLen(config: Pick<ModelConfig, 'name' | 'parameters'>): number | { error: string } {
  const text = config.parameters?.[MAX_SEQ_LEN]?.string_value;
  if (text === undefined) return { error: `parameter '${MAX_SEQ_LEN}' is required: the longest sequence (prompt + generated tokens) the model can hold` };
  return readNumberText(text, `parameter '${MAX_SEQ_LEN}' of model '${config.name ?? ''}'`, MAX_SEQ_LEN_RULE);
}

/** The refusals every host of an iterative model gives (the server's scheduler, teaching mode). */
export const ITERATIVE_REFUSALS = {
  instanceCount: (model: string) => `model '${model}' is an iterative model: its steps run on one instance`,
} as const;

/**
 * The live knobs (live-config/iterative-knobs.ts, which cannot import this area) are keys of this table:
 * a key renamed in one place and not in the other fails the build here.
 */
export const LIVE_KNOBS_ARE_PARAMETERS: IterativeKnobField extends (typeof ITERATIVE_PARAMETERS)[keyof typeof ITERATIVE_PARAMETERS] ? true : never = true;

/** TensorRT-LLM's gpt_model_type values: V1 is its request-level (static) batching */
const BATCHING: Record<string, GenBatching> = { inflight_fused_batching: 'continuous', inflight_batching: 'continuous', V1: 'static' };

const DEFAULT_BLOCK_TOKENS = 16;
const COUNT: NumberRule = { min: 1, max: 1 << 24 };

export interface IterativeSetup {
  knobs: IterativeKnobs;
  /** the KV cache as the allocator and the ledger take it (totalBlocks may be capped below plan.totalBlocks) */
  plan: KvPlan;
  /** continuous (in-flight) or the request-level baseline */
  batching: GenBatching;
}

export function iterativeSetupFromConfig(
  config: Pick<ModelConfig, 'name' | 'input' | 'output' | 'max_batch_size' | 'parameters'>,
  memory: { kvBudgetBytes: number; maxSequenceTokens: number },
): { setup: IterativeSetup } | { problems: string[] } {
  const problems: string[] = [];
  const what = (key: string) => `parameter '${key}'${config.name ? ` of model '${config.name}'` : ''}`;
  const text = (key: string) => config.parameters?.[key]?.string_value;
  const num = (key: string, rule: NumberRule, fallback: number): number => {
    const t = text(key);
    if (t === undefined) return fallback;
    const n = readNumberText(t, what(key), rule);
    if (typeof n === 'number') return n;
    problems.push(n.error);
    return fallback;
  };
  const P = ITERATIVE_PARAMETERS;
  const maxNumSequences = num(P.maxNumSequences, COUNT, Math.max(1, config.max_batch_size ?? 1));
  const maxNumTokens = num(P.maxNumTokens, COUNT, memory.maxSequenceTokens);
  const blockTokens = num(P.blockTokens, { min: 1, max: 4096 }, DEFAULT_BLOCK_TOKENS);
  const maxKvTokens = num(P.maxKvTokens, COUNT, Infinity);
  const fraction = num(P.kvFraction, { min: 0, max: 1, decimals: 6 }, 1);
  if (fraction === 0) problems.push(`${what(P.kvFraction)} must be above 0: no KV cache could hold a sequence`);
  const chunked = text(P.enableChunkedContext);
  if (chunked !== undefined && chunked !== 'true' && chunked !== 'false') problems.push(`${what(P.enableChunkedContext)} must be 'true' or 'false', got '${chunked}'`);
  const policy = text(P.policy) ?? 'guaranteed_no_evict';
  if (!KV_ADMISSION_POLICIES.includes(policy as KvAdmissionPolicy)) problems.push(`${what(P.policy)} must be one of ${KV_ADMISSION_POLICIES.join(', ')}, got '${policy}'`);
  const modelType = text(P.batching) ?? 'inflight_fused_batching';
  const batching = BATCHING[modelType];
  if (!batching) problems.push(`${what(P.batching)} must be one of ${Object.keys(BATCHING).join(', ')}, got '${modelType}'`);
  if (problems.length || !batching) return { problems };

  // The KV cache: the memory it may take, capped by max_tokens_in_paged_kv_cache (whole blocks).
  const bytes = Math.floor(memory.kvBudgetBytes * fraction);
  const planned = planKvCache({ config, budgetBytes: bytes, blockTokens, maxSequenceTokens: memory.maxSequenceTokens });
  if ('problem' in planned) return { problems: [planned.problem] };
  const cap = Number.isFinite(maxKvTokens) ? Math.floor(maxKvTokens / blockTokens) : Infinity;
  const plan = cap < planned.plan.totalBlocks ? { ...planned.plan, totalBlocks: cap, bytes: cap * planned.plan.bytesPerBlock } : planned.plan;
  const short = kvBudgetProblem({ totalBlocks: plan.totalBlocks, blockTokens, maxSequenceTokens: memory.maxSequenceTokens });
  if (short) return { problems: [`${what(P.maxKvTokens)} caps the KV cache: ${short}`] };
  const knobs: IterativeKnobs = { maxNumSequences, maxNumTokens, enableChunkedContext: chunked === 'true', policy: policy as KvAdmissionPolicy, totalBlocks: plan.totalBlocks, blockTokens };
  return { setup: { knobs, plan, batching } };
}

/**
 * The memory a KV cache is given where no memory budget is set (a server without --memory-budget, teaching
 * mode): every slot (max_num_sequences) its longest sequence, at `config`'s KV bytes per token; the
 * parameters' own limits (max_tokens_in_paged_kv_cache, the fraction) then apply to it as to a budget.
 * Where the parameters cannot be read (or the shape), no bound at all: iterativeSetupFromConfig over it
 * then names the problems in the words it uses for any budget.
 */
export function unbudgetedKvBytes(config: Parameters<typeof iterativeSetupFromConfig>[0], maxSequenceTokens: number): number {
  const got = iterativeSetupFromConfig(config, { kvBudgetBytes: Number.MAX_SAFE_INTEGER, maxSequenceTokens });
  const read = kvShapeFromConfig(config);
  if (!('setup' in got) || !('shape' in read)) return Number.MAX_SAFE_INTEGER;
  return got.setup.knobs.maxNumSequences * maxSequenceTokens * kvBytesPerBlock(read.shape, 1);
}
