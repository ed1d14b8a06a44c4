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
    const { kvHeads, headDim } = this.shape;
    for (let i = 0; i < count; i++) {
      const token = firstToken + i;
      const block = table[Math.floor(token / this.blockTokens)];
      if (block === undefined) throw new RangeError(`KV block store: token ${token} is past the sequence's ${table.length} blocks`);
      for (let h = 0; h < kvHeads; h++) {
        const at = ((row * kvHeads + h) * srcTokens + from + i) * headDim;
        this.data.set(src.subarray(at, at + headDim), this.offset(block, layer, kind, h, token % this.blockTokens));
      }
    }
  }

  /**
   * Writes a sequence's first `tokens` tokens into batch row `row` of a past tensor ([batch, heads,
   * padTo, headDim]); slots from `tokens` to `padTo` are left as they are (zeros in a fresh tensor).
   */
  gather(table: readonly number[], tokens: number, layer: number, kind: KvKind, dst: Float32Array, padTo: number, row: number): void {
    const { kvHeads, headDim } = this.shape;
    for (let t = 0; t < tokens; t++) {
      const block = table[Math.floor(t / this.blockTokens)];
      if (block === undefined) throw new RangeError(`KV block store: token ${t} is past the sequence's ${table.length} blocks`);
      for (let h = 0; h < kvHeads; h++) {
        const from = this.offset(block, layer, kind, h, t % this.blockTokens);
        dst.set(this.data.subarray(from, from + headDim), ((row * kvHeads + h) * padTo + t) * headDim);
      }
    }
  }

  private offset(block: number, layer: number, kind: KvKind, head: number, slot: number): number {
    const { kvHeads, headDim } = this.shape;
    return block * this.blockStride + (((layer * 2 + (kind === 'key' ? 0 : 1)) * kvHeads + head) * this.blockTokens + slot) * headDim;
  }
}
