/**
 * What one KV-cache block costs in bytes, from the model's shape. The one formula, so the memory ledger,
 * the loader's budget check and the dashboard count the same bytes.
 *
 * Every layer keeps a key and a value vector per head for every token: layers x 2 x heads x head_dim
 * elements per token; a block holds `blockTokens` tokens. `kvHeads` is the number of key/value heads
 * (fewer than the query heads under grouped-query attention), which is what the cache stores.
 */
export interface KvModelShape {
  layers: number;
  kvHeads: number;
  headDim: number;
  /** bytes per element: 4 for FP32 (the default), 2 for FP16/BF16 */
  bytesPerElement?: number;
}

/** Bytes of one block of `blockTokens` tokens: layers x 2 (K and V) x kvHeads x headDim x blockTokens x bytes. */
export function kvBytesPerBlock(shape: KvModelShape, blockTokens: number): number {
  const bytes = shape.bytesPerElement ?? 4;
  for (const [name, v] of [['layers', shape.layers], ['kvHeads', shape.kvHeads], ['headDim', shape.headDim], ['bytesPerElement', bytes], ['blockTokens', blockTokens]] as const) {
    if (!Number.isSafeInteger(v) || v < 1) throw new RangeError(`KV cache ${name} must be a positive integer, got ${v}`);
  }
  return shape.layers * 2 * shape.kvHeads * shape.headDim * blockTokens * bytes;
}

/** How many whole blocks a byte budget holds (a partial block is no block). */
export function kvBlocksInBudget(budgetBytes: number, shape: KvModelShape, blockTokens: number): number {
  if (!(budgetBytes >= 0)) throw new RangeError(`KV cache budget must be a non-negative number of bytes, got ${budgetBytes}`);
  return Math.floor(budgetBytes / kvBytesPerBlock(shape, blockTokens));
}
