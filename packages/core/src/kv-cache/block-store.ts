/**
 * The KV cache's memory: one Float32Array cut into the allocator's blocks. A block holds `blockTokens`
 * token slots of every layer's keys and values, laid out [layer][key|value][head][slot][headDim], so one
 * token of one head is a contiguous headDim run and a block is one contiguous range (freeing it frees one
 * range; nothing else moves). The allocator decides which blocks a sequence owns; this copies tokens in
 * after a step (scatter) and out into a step's padded past tensors (gather).
 */
import { kvBytesPerBlock, type KvModelShape } from './kv-bytes';

export type KvKind = 'key' | 'value';

export class KvBlockStore {
  readonly data: Float32Array;
  /** floats per block */
  private readonly blockStride: number;

  constructor(
    readonly shape: KvModelShape,
    readonly blockTokens: number,
    readonly totalBlocks: number,
  ) {
    if ((shape.bytesPerElement ?? 4) !== 4) throw new RangeError('KV block store: only FP32 caches are stored (bytesPerElement 4)');
    if (!Number.isSafeInteger(totalBlocks) || totalBlocks < 1) throw new RangeError(`KV cache totalBlocks must be a positive integer, got ${totalBlocks}`);
    this.blockStride = kvBytesPerBlock(shape, blockTokens) / 4;
    this.data = new Float32Array(this.blockStride * totalBlocks);
  }

  /**
   * Copies `count` tokens of batch row `row` of a step's present tensor ([batch, heads, srcTokens, headDim]),
   * starting at its token `from`, into a sequence's token slots `firstToken`, `firstToken + 1`, ...
   * through its block table (which must already cover them: the allocator grew it).
   */
  scatter(table: readonly number[], firstToken: number, layer: number, kind: KvKind, src: Float32Array, srcTokens: number, row: number, from: number, count: number): void {
    this.runs(table, firstToken, count, (block, slot, i, n) => {
      for (let h = 0; h < this.shape.kvHeads; h++) {
        const at = ((row * this.shape.kvHeads + h) * srcTokens + from + i) * this.shape.headDim;
        this.data.set(src.subarray(at, at + n * this.shape.headDim), this.offset(block, layer, kind, h, slot));
      }
    });
  }

  /**
   * Writes a sequence's first `tokens` tokens into batch row `row` of a past tensor ([batch, heads,
   * padTo, headDim]); slots from `tokens` to `padTo` are left as they are (zeros in a fresh tensor).
   */
  gather(table: readonly number[], tokens: number, layer: number, kind: KvKind, dst: Float32Array, padTo: number, row: number): void {
    this.runs(table, 0, tokens, (block, slot, i, n) => {
      for (let h = 0; h < this.shape.kvHeads; h++) {
        const from = this.offset(block, layer, kind, h, slot);
        dst.set(this.data.subarray(from, from + n * this.shape.headDim), ((row * this.shape.kvHeads + h) * padTo + i) * this.shape.headDim);
      }
    });
  }

  /**
   * Walks tokens first..first+count-1 of a sequence as runs within one block each (`n` tokens from block
   * slot `slot`, the run's first token being the i-th of the walk): a head's tokens in a run are one
   * contiguous range on both sides, so each run is one copy per head, not one per token.
   */
  private runs(table: readonly number[], first: number, count: number, copy: (block: number, slot: number, i: number, n: number) => void): void {
    for (let i = 0; i < count; ) {
      const token = first + i;
      const block = table[Math.floor(token / this.blockTokens)];
      if (block === undefined) throw new RangeError(`KV block store: token ${token} is past the sequence's ${table.length} blocks`);
      const slot = token % this.blockTokens;
      const n = Math.min(this.blockTokens - slot, count - i);
      copy(block, slot, i, n);
      i += n;
    }
  }

  private offset(block: number, layer: number, kind: KvKind, head: number, slot: number): number {
    const { kvHeads, headDim } = this.shape;
    return block * this.blockStride + (((layer * 2 + (kind === 'key' ? 0 : 1)) * kvHeads + head) * this.blockTokens + slot) * headDim;
  }
}
