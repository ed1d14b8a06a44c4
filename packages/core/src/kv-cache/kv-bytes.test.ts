import { test } from 'node:test';
import assert from 'node:assert/strict';
import { kvBlocksInBudget, kvBytesPerBlock } from './kv-bytes';
import { kvBudgetProblem } from './kv-budget';

test('bytes per block: layers x 2 x kv heads x head dim x block tokens x bytes per element', () => {
  // The bundled tiny_lm: 2 layers, 4 heads of 16, FP32; 16-token blocks.
  assert.equal(kvBytesPerBlock({ layers: 2, kvHeads: 4, headDim: 16 }, 16), 2 * 2 * 4 * 16 * 16 * 4);
  // Llama-2-7B in FP16 with vLLM's 16-token blocks: 32 x 2 x 32 x 128 x 16 x 2 = 8 MiB a block.
  assert.equal(kvBytesPerBlock({ layers: 32, kvHeads: 32, headDim: 128, bytesPerElement: 2 }, 16), 8 * 1024 * 1024);
  assert.throws(() => kvBytesPerBlock({ layers: 0, kvHeads: 4, headDim: 16 }, 16), /layers must be a positive integer/);
  assert.throws(() => kvBytesPerBlock({ layers: 2, kvHeads: 4, headDim: 16 }, 0), /blockTokens must be a positive integer/);
});

test('a byte budget holds whole blocks only', () => {
  const shape = { layers: 2, kvHeads: 4, headDim: 16 };
  assert.equal(kvBlocksInBudget(16384 * 3 - 1, shape, 16), 2);
  assert.equal(kvBlocksInBudget(16384 * 3, shape, 16), 3);
  assert.throws(() => kvBlocksInBudget(-1, shape, 16), /non-negative/);
});

test('the loader\'s check: a budget below one maximal sequence is refused with the shortfall in blocks and bytes', () => {
  assert.equal(kvBudgetProblem({ totalBlocks: 4, blockTokens: 16, maxSequenceTokens: 64 }), null);
  const msg = kvBudgetProblem({ totalBlocks: 3, blockTokens: 16, maxSequenceTokens: 64, bytesPerBlock: 16384 });
  assert.equal(
    msg,
    "KV cache budget of 3 blocks (49152 bytes) holds 48 tokens, less than one sequence's maximum of 64 tokens (4 blocks of 16 tokens): " +
      'such a sequence could never finish. Give the KV cache at least 4 blocks (65536 bytes) or lower the maximum sequence length',
  );
});
