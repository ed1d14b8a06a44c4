/**
 * Can a KV-cache budget ever serve one sequence of the model's maximum length? The loader calls this
 * before serving a generative model: a budget below one whole sequence would admit requests that can
 * never finish (under max_utilization a lone sequence would preempt itself forever; under
 * guaranteed_no_evict it would wait forever), so it is refused up front with the numbers a user needs.
 */

/** Blocks needed to hold `tokens` tokens (a partly filled block is a whole block). */
export function kvBlocksFor(tokens: number, blockTokens: number): number {
  return Math.ceil(tokens / blockTokens);
}

export interface KvBudgetCheck {
  /** blocks the budget holds */
  totalBlocks: number;
  /** tokens per block */
  blockTokens: number;
  /** the most tokens one sequence may hold (prompt + generated) */
  maxSequenceTokens: number;
  /** bytes per block (kvBytesPerBlock), to say the shortfall in bytes too */
  bytesPerBlock?: number;
}

/** null when one sequence of the maximum length fits; otherwise the reason, worded for the user. */
export function kvBudgetProblem(c: KvBudgetCheck): string | null {
  const need = kvBlocksFor(c.maxSequenceTokens, c.blockTokens);
  if (need <= c.totalBlocks) return null;
  const bytes = (blocks: number) => (c.bytesPerBlock === undefined ? '' : ` (${blocks * c.bytesPerBlock} bytes)`);
  return (
    `KV cache budget of ${c.totalBlocks} blocks${bytes(c.totalBlocks)} holds ${c.totalBlocks * c.blockTokens} tokens, ` +
    `less than one sequence's maximum of ${c.maxSequenceTokens} tokens (${need} blocks of ${c.blockTokens} tokens): ` +
    `such a sequence could never finish. Give the KV cache at least ${need} blocks${bytes(need)} or lower the maximum sequence length`
  );
}
