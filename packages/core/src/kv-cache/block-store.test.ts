import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Rng } from '../load/rng';
import { KvBlockStore } from './block-store';

test('seeded round trips: tokens scattered in chunks at any offset through shuffled block tables gather back exactly', () => {
  for (let seed = 1; seed <= 40; seed++) {
    const rng = new Rng(seed);
    const shape = { layers: rng.int(1, 3), kvHeads: rng.int(1, 3), headDim: rng.int(1, 5) };
    const blockTokens = rng.int(1, 6);
    const totalBlocks = 24;
    const store = new KvBlockStore(shape, blockTokens, totalBlocks);
    // Two sequences with interleaved, shuffled blocks: a copy that strays into the other's blocks shows.
    const blocks = Array.from({ length: totalBlocks }, (_, i) => i).sort(() => rng.next() - 0.5);
    const seqs = [{ table: blocks.filter((_, i) => i % 2 === 0), tokens: 0, salt: 1 }, { table: blocks.filter((_, i) => i % 2 === 1), tokens: 0, salt: 2 }];
    const capacity = (totalBlocks / 2) * blockTokens;
    const val = (salt: number, layer: number, kind: number, token: number, h: number, d: number) => salt * 1e6 + layer * 1e5 + kind * 1e4 + token * 100 + h * 10 + d;
    for (let round = 0; round < 30; round++) {
      const s = seqs[rng.int(0, 1)];
      const count = Math.min(rng.int(1, 2 * blockTokens + 1), capacity - s.tokens);
      if (count === 0) continue;
      // A present-like source: `count` new tokens sit after `from` other tokens in row `row` of a batch of 2.
      const from = rng.int(0, 3);
      const srcTokens = from + count;
      const row = rng.int(0, 1);
      for (let layer = 0; layer < shape.layers; layer++) {
        for (const [kind, name] of [[0, 'key'], [1, 'value']] as const) {
          const src = new Float32Array(2 * shape.kvHeads * srcTokens * shape.headDim).fill(-1);
          for (let i = 0; i < count; i++) {
            for (let h = 0; h < shape.kvHeads; h++) {
              for (let d = 0; d < shape.headDim; d++) src[((row * shape.kvHeads + h) * srcTokens + from + i) * shape.headDim + d] = val(s.salt, layer, kind, s.tokens + i, h, d);
            }
          }
          store.scatter(s.table, s.tokens, layer, name, src, srcTokens, row, from, count);
        }
      }
      s.tokens += count;
    }
    for (const s of seqs) {
      const padTo = s.tokens + 2;
      for (let layer = 0; layer < shape.layers; layer++) {
        for (const [kind, name] of [[0, 'key'], [1, 'value']] as const) {
          const dst = new Float32Array(2 * shape.kvHeads * padTo * shape.headDim);
          store.gather(s.table, s.tokens, layer, name, dst, padTo, 1);
          const want = new Float32Array(dst.length);
          for (let t = 0; t < s.tokens; t++) {
            for (let h = 0; h < shape.kvHeads; h++) {
              for (let d = 0; d < shape.headDim; d++) want[((shape.kvHeads + h) * padTo + t) * shape.headDim + d] = val(s.salt, layer, kind, t, h, d);
            }
          }
          assert.deepEqual(dst, want, `seed ${seed}: layer ${layer} ${name} of sequence ${s.salt}`);
        }
      }
    }
  }
});
