import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ModelConfig } from '../config/types';
import { kvBytesPerBlock } from '../kv-cache/index';
import { iterativeSetupFromConfig, unbudgetedKvBytes } from './config-knobs';

type Io = NonNullable<ModelConfig['input']>;
const t = (name: string, data_type: string, dims: number[]) => ({ name, data_type, dims }) as Io[number];
/** tiny_lm's signature: 2 layers, 4 heads of 16 floats (a token's KV: 2 x 2 x 4 x 16 x 4 = 1024 bytes). */
const per = (p: string) => [0, 1].flatMap((l) => [t(`${p}_key_${l}`, 'TYPE_FP32', [4, -1, 16]), t(`${p}_value_${l}`, 'TYPE_FP32', [4, -1, 16])]);
const config = (parameters: Record<string, string> = {}): Parameters<typeof iterativeSetupFromConfig>[0] => ({
  name: 'tiny_lm',
  max_batch_size: 8,
  input: [t('input_ids', 'TYPE_INT64', [-1]), t('position_ids', 'TYPE_INT64', [-1]), t('attention_mask', 'TYPE_INT64', [-1]), ...per('past')],
  output: [t('logits', 'TYPE_FP32', [257]), ...per('present')],
  parameters: Object.fromEntries(Object.entries(parameters).map(([k, v]) => [k, { string_value: v }])),
});
const SHAPE = { layers: 2, kvHeads: 4, headDim: 16, bytesPerElement: 4 };
const MEMORY = { kvBudgetBytes: 1 << 20, maxSequenceTokens: 256 };

test('defaults: TensorRT-LLM policy and chunking, max_batch_size sequences, a whole sequence of tokens, the budget in 16-token blocks', () => {
  const r = iterativeSetupFromConfig(config(), MEMORY);
  assert.ok('setup' in r, JSON.stringify(r));
  const perBlock = kvBytesPerBlock(SHAPE, 16);
  assert.equal(perBlock, 16 * 1024);
  assert.deepEqual(r.setup.knobs, { maxNumSequences: 8, maxNumTokens: 256, enableChunkedContext: false, policy: 'guaranteed_no_evict', totalBlocks: 64, blockTokens: 16 });
  assert.equal(r.setup.plan.bytes, 64 * perBlock, 'the ledger is charged whole blocks');
});

test("TensorRT-LLM's keys set the knobs; the smaller KV limit wins", () => {
  const r = iterativeSetupFromConfig(
    config({ max_num_sequences: '3', max_num_tokens: '40', enable_chunked_context: 'true', batch_scheduler_policy: 'max_utilization', tokens_per_block: '8', max_tokens_in_paged_kv_cache: '300', kv_cache_free_gpu_mem_fraction: '0.5' }),
    MEMORY,
  );
  assert.ok('setup' in r, JSON.stringify(r));
  // 0.5 of 1 MiB = 64 blocks of 8 tokens (8 KiB each); 300 tokens cap it at 37 blocks.
  assert.deepEqual(r.setup.knobs, { maxNumSequences: 3, maxNumTokens: 40, enableChunkedContext: true, policy: 'max_utilization', totalBlocks: 37, blockTokens: 8 });
  assert.equal(r.setup.plan.bytes, 37 * 8 * 1024);
  const byFraction = iterativeSetupFromConfig(config({ tokens_per_block: '8', max_tokens_in_paged_kv_cache: '100000', kv_cache_free_gpu_mem_fraction: '0.25' }), MEMORY);
  assert.ok('setup' in byFraction);
  assert.equal(byFraction.setup.knobs.totalBlocks, 32);
});

test('every bad key is named in one refusal, with the value the user wrote', () => {
  const r = iterativeSetupFromConfig(config({ max_num_sequences: '0', max_num_tokens: '1e3', enable_chunked_context: 'yes', batch_scheduler_policy: 'fastest', kv_cache_free_gpu_mem_fraction: '1.5' }), MEMORY);
  assert.ok('problems' in r);
  assert.equal(r.problems.length, 5, r.problems.join('\n'));
  const all = r.problems.join('\n');
  assert.match(all, /parameter 'max_num_sequences' of model 'tiny_lm' must be an integer >= 1 .*got '0'/);
  assert.match(all, /parameter 'max_num_tokens' of model 'tiny_lm' must be an integer .*got '1e3'/);
  assert.match(all, /'enable_chunked_context' of model 'tiny_lm' must be 'true' or 'false', got 'yes'/);
  assert.match(all, /'batch_scheduler_policy' of model 'tiny_lm' must be one of guaranteed_no_evict, max_utilization, got 'fastest'/);
  assert.match(all, /'kv_cache_free_gpu_mem_fraction' of model 'tiny_lm' must be a number >= 0 and <= 1 .*got '1.5'/);
});

test('a KV budget smaller than one sequence is refused at load with the shortfall', () => {
  const small = iterativeSetupFromConfig(config(), { kvBudgetBytes: 100_000, maxSequenceTokens: 256 });
  assert.ok('problems' in small);
  assert.match(small.problems[0]!, /model 'tiny_lm': KV cache budget of 6 blocks \(98304 bytes\) holds 96 tokens, less than one sequence's maximum of 256 tokens \(16 blocks of 16 tokens\).*at least 16 blocks \(262144 bytes\)/);
  const capped = iterativeSetupFromConfig(config({ max_tokens_in_paged_kv_cache: '200' }), MEMORY);
  assert.ok('problems' in capped);
  assert.match(capped.problems[0]!, /parameter 'max_tokens_in_paged_kv_cache' of model 'tiny_lm' caps the KV cache: KV cache budget of 12 blocks holds 192 tokens, less than one sequence's maximum of 256/);
  const zero = iterativeSetupFromConfig(config({ kv_cache_free_gpu_mem_fraction: '0' }), MEMORY);
  assert.ok('problems' in zero);
  assert.match(zero.problems[0]!, /must be above 0/);
});

test("gpt_model_type: in-flight batching by default, TensorRT-LLM's V1 is the request-level baseline, anything else refused naming the key", () => {
  const batching = (v?: string) => {
    const r = iterativeSetupFromConfig(config(v === undefined ? {} : { gpt_model_type: v }), MEMORY);
    return 'setup' in r ? r.setup.batching : r.problems.join('; ');
  };
  assert.equal(batching(), 'continuous');
  assert.equal(batching('inflight_fused_batching'), 'continuous');
  assert.equal(batching('V1'), 'static');
  assert.equal(batching('v1'), "parameter 'gpt_model_type' of model 'tiny_lm' must be one of inflight_fused_batching, inflight_batching, V1, got 'v1'");
});

test('without a memory budget every slot gets its longest sequence of KV; the parameters still cap it; a bad config is not bounded here (the setup names its problems)', () => {
  assert.equal(unbudgetedKvBytes(config(), 256), 8 * 256 * 1024, 'max_batch_size 8 slots x 256 tokens x 1 KiB');
  const bytes = unbudgetedKvBytes(config({ max_num_sequences: '3', max_tokens_in_paged_kv_cache: '512' }), 256);
  assert.equal(bytes, 3 * 256 * 1024);
  const r = iterativeSetupFromConfig(config({ max_num_sequences: '3', max_tokens_in_paged_kv_cache: '512' }), { kvBudgetBytes: bytes, maxSequenceTokens: 256 });
  assert.ok('setup' in r && r.setup.knobs.totalBlocks === 32, 'capped at 512 tokens, under the 48 blocks the slots would take');
  for (const bad of [{ max_num_sequences: 'x' }, { max_tokens_in_paged_kv_cache: '64' }] as Record<string, string>[]) {
    const setup = iterativeSetupFromConfig(config(bad), { kvBudgetBytes: unbudgetedKvBytes(config(bad), 256), maxSequenceTokens: 256 });
    assert.deepEqual(setup, iterativeSetupFromConfig(config(bad), { kvBudgetBytes: Number.MAX_SAFE_INTEGER, maxSequenceTokens: 256 }));
    assert.ok('problems' in setup && setup.problems[0]!.includes(Object.keys(bad)[0]!), JSON.stringify(setup));
  }
});
