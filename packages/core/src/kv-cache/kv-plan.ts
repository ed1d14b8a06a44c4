/**
 * The loader's one call for a step-scheduled model's KV cache: its shape from the config, the bytes of a
 * block, how many blocks the memory it is given holds, and whether one sequence of the maximum length fits.
 * Either a plan the allocator and the memory ledger take as they are, or the reason to refuse the model.
 */
import type { ModelConfig } from '../config/types';
import { kvBudgetProblem } from './kv-budget';
import { kvBlocksInBudget, kvBytesPerBlock, type KvModelShape } from './kv-bytes';
import { kvShapeFromConfig } from './kv-signature';

export interface KvPlan {
  shape: KvModelShape;
  blockTokens: number;
  bytesPerBlock: number;
  totalBlocks: number;
  /** totalBlocks x bytesPerBlock: what the memory ledger charges (the budget's remainder is not used) */
  bytes: number;
}

export function planKvCache(o: {
  config: Pick<ModelConfig, 'name' | 'input' | 'output' | 'max_batch_size'>;
  budgetBytes: number;
  blockTokens: number;
  maxSequenceTokens: number;
}): { plan: KvPlan } | { problem: string } {
  const read = kvShapeFromConfig(o.config);
  if ('problem' in read) return { problem: `model '${o.config.name ?? ''}': ${read.problem}` };
  const bytesPerBlock = kvBytesPerBlock(read.shape, o.blockTokens);
  const totalBlocks = kvBlocksInBudget(o.budgetBytes, read.shape, o.blockTokens);
  const problem = kvBudgetProblem({ totalBlocks, blockTokens: o.blockTokens, maxSequenceTokens: o.maxSequenceTokens, bytesPerBlock });
  if (problem) return { problem: `model '${o.config.name ?? ''}': ${problem}` };
  return { plan: { shape: read.shape, blockTokens: o.blockTokens, bytesPerBlock, totalBlocks, bytes: totalBlocks * bytesPerBlock } };
}
