import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KvBlockAllocator } from './block-allocator';
import { KvBlockStore } from './block-store';
import { KV_STEP_TENSORS, buildKvStep, storeKvStep, type KvStep } from './step-batch';

// A cache of 1 layer, 2 heads of 3 floats, blocks of 2 tokens. A token's key in head h is
// [id*100 + h*10 + 0, +1, +2]; its value is the negative: every float says where it came from.
const SHAPE = { layers: 1, kvHeads: 2, headDim: 3 };
const keyOf = (token: number, h: number) => [0, 1, 2].map((i) => token * 100 + h * 10 + i);

/** A model's present tensors for a step: past as given, then each row's new tokens as keyOf/-keyOf (padding NaN). */
function fakePresent(step: KvStep, tokenIds: (row: number, j: number) => number | null): Record<string, Float32Array> {
  const T = step.pastLen + step.newLen;
  const B = step.batch;
  const key = new Float32Array(B * 2 * T * 3).fill(NaN);
  const value = new Float32Array(B * 2 * T * 3).fill(NaN);
  const past = step.inputs.find((t) => t.name === KV_STEP_TENSORS.pastKey(0))!.data as Float32Array;
  const pastV = step.inputs.find((t) => t.name === KV_STEP_TENSORS.pastValue(0))!.data as Float32Array;
  for (let b = 0; b < B; b++) {
    for (let h = 0; h < 2; h++) {
      key.set(past.subarray((b * 2 + h) * step.pastLen * 3, (b * 2 + h + 1) * step.pastLen * 3), (b * 2 + h) * T * 3);
      value.set(pastV.subarray((b * 2 + h) * step.pastLen * 3, (b * 2 + h + 1) * step.pastLen * 3), (b * 2 + h) * T * 3);
      for (let j = 0; j < step.newLen; j++) {
        const id = tokenIds(b, j);
        if (id === null) continue;
        key.set(keyOf(id, h), ((b * 2 + h) * T + step.pastLen + j) * 3);
        value.set(keyOf(id, h).map((x) => -x), ((b * 2 + h) * T + step.pastLen + j) * 3);
      }
    }
  }
  return { [KV_STEP_TENSORS.presentKey(0)]: key, [KV_STEP_TENSORS.presentValue(0)]: value };
}

test('a step pads the past at its end and the new tokens at their start, masks the padding, and stores only real tokens', () => {
  const allocator = new KvBlockAllocator({ totalBlocks: 6, blockTokens: 2, policy: 'max_utilization' });
  const store = new KvBlockStore(SHAPE, 2, 6);
  // Step 1: prefill x = [7, 8, 9] and y = [5] together.
  allocator.admit('x', 3, 6);
  allocator.admit('y', 1, 6);
  const rows1 = [
    { table: allocator.sequence('x').blocks, cached: 0, tokens: [7, 8, 9] },
    { table: allocator.sequence('y').blocks, cached: 0, tokens: [5] },
  ];
  const s1 = buildKvStep(store, rows1);
  assert.equal(s1.pastLen, 0);
  assert.equal(s1.newLen, 3);
  const by = (s: KvStep, n: string) => s.inputs.find((t) => t.name === n)!;
  assert.deepEqual([...by(s1, KV_STEP_TENSORS.inputIds).data], [7n, 8n, 9n, 0n, 0n, 5n]);
  assert.deepEqual([...by(s1, KV_STEP_TENSORS.positionIds).data], [0n, 1n, 2n, 0n, 0n, 0n]);
  assert.deepEqual([...by(s1, KV_STEP_TENSORS.attentionMask).data], [1n, 1n, 1n, 0n, 0n, 1n]);
  assert.deepEqual(by(s1, KV_STEP_TENSORS.pastKey(0)).dims, [2, 2, 0, 3]);
  storeKvStep(store, s1, fakePresent(s1, (b, j) => (b === 0 ? [7, 8, 9][j] : j === 2 ? 5 : null)));

  // Step 2: x decodes 4, y decodes 6: past padded to x's 3 tokens; y's past is [5] then one padded slot.
  allocator.grow('x');
  allocator.grow('y');
  const rows2 = [
    { table: allocator.sequence('x').blocks, cached: 3, tokens: [4] },
    { table: allocator.sequence('y').blocks, cached: 1, tokens: [6] },
  ];
  const s2 = buildKvStep(store, rows2);
  assert.equal(s2.pastLen, 3);
  assert.deepEqual([...by(s2, KV_STEP_TENSORS.positionIds).data], [3n, 1n]);
  assert.deepEqual([...by(s2, KV_STEP_TENSORS.attentionMask).data], [1n, 1n, 1n, 1n, 1n, 0n, 0n, 1n]);
  const pastKey = by(s2, KV_STEP_TENSORS.pastKey(0));
  assert.deepEqual(pastKey.dims, [2, 2, 3, 3]);
  const rowHead = (b: number, h: number) => [...(pastKey.data as Float32Array).subarray((b * 2 + h) * 9, (b * 2 + h + 1) * 9)];
  assert.deepEqual(rowHead(0, 1), [...keyOf(7, 1), ...keyOf(8, 1), ...keyOf(9, 1)], 'x read back from its blocks, no NaN padding stored');
  assert.deepEqual(rowHead(1, 0), [...keyOf(5, 0), 0, 0, 0, 0, 0, 0], "y's past: its one token, then zero padding");
  const pastValue = by(s2, KV_STEP_TENSORS.pastValue(0)).data as Float32Array;
  assert.deepEqual([...pastValue.subarray(9, 12)], keyOf(7, 1).map((x) => -x));
  storeKvStep(store, s2, fakePresent(s2, (b) => (b === 0 ? 4 : 6)));

  // y alone now: its cache is [5, 6] whatever it shared.
  allocator.grow('y');
  const s3 = buildKvStep(store, [{ table: allocator.sequence('y').blocks, cached: 2, tokens: [1] }]);
  assert.deepEqual([...(by(s3, KV_STEP_TENSORS.pastKey(0)).data as Float32Array).subarray(0, 6)], [...keyOf(5, 0), ...keyOf(6, 0)]);
});

test('a step refuses what it cannot do: no rows, a row without tokens, a table too short, a present of the wrong size', () => {
  const store = new KvBlockStore(SHAPE, 2, 4);
  assert.throws(() => buildKvStep(store, []), /no rows/);
  assert.throws(() => buildKvStep(store, [{ table: [0], cached: 0, tokens: [] }]), /row 0 has no new token/);
  assert.throws(() => buildKvStep(store, [{ table: [0], cached: 2, tokens: [1] }]), /row 0's 1 blocks hold 2 tokens, fewer than its 2 cached \+ 1 new/);
  assert.throws(() => buildKvStep(store, [{ table: [0], cached: 0, tokens: [1, 2, 3] }]), /fewer than its 0 cached \+ 3 new/);
  const step = buildKvStep(store, [{ table: [0, 1], cached: 0, tokens: [1, 2, 3] }]);
  assert.throws(() => storeKvStep(store, { ...step, rows: [{ table: [0], cached: 0, tokens: [1, 2, 3] }] }, fakePresent(step, () => 1)), /token 2 is past the sequence's 1 blocks/);
  assert.throws(() => storeKvStep(store, step, {}), /present_key_0 is missing or not \[1, 2, 3, 3\]/);
  assert.throws(() => new KvBlockStore({ ...SHAPE, bytesPerElement: 2 }, 2, 4), /only FP32/);
});

test("pad rows (a request-level batch's finished members) are computed at the step's past but never stored", () => {
  const allocator = new KvBlockAllocator({ totalBlocks: 4, blockTokens: 2, policy: 'max_utilization' });
  const store = new KvBlockStore(SHAPE, 2, 4);
  allocator.admit('x', 2, 4);
  const s1 = buildKvStep(store, [{ table: allocator.sequence('x').blocks, cached: 0, tokens: [7, 8] }]);
  storeKvStep(store, s1, fakePresent(s1, (_b, j) => [7, 8][j]!));
  allocator.grow('x');
  const s2 = buildKvStep(store, [{ table: allocator.sequence('x').blocks, cached: 2, tokens: [9] }], 2);
  assert.equal(s2.batch, 3);
  const by = (n: string) => s2.inputs.find((t) => t.name === n)!;
  assert.deepEqual(by(KV_STEP_TENSORS.inputIds).dims, [3, 1]);
  assert.deepEqual(by(KV_STEP_TENSORS.pastKey(0)).dims, [3, 2, 2, 3], 'a pad row carries the whole past length, as a fixed batch tensor does');
  assert.deepEqual([...by(KV_STEP_TENSORS.attentionMask).data], [1n, 1n, 1n, 0n, 0n, 1n, 0n, 0n, 1n], 'a pad row attends to its own token only');
  // The model's pad-row outputs hold token 99: none of it may reach a block.
  storeKvStep(store, s2, fakePresent(s2, (b) => (b === 0 ? 9 : 99)));
  allocator.grow('x');
  const s3 = buildKvStep(store, [{ table: allocator.sequence('x').blocks, cached: 3, tokens: [1] }]);
  const past = s3.inputs.find((t) => t.name === KV_STEP_TENSORS.pastKey(0))!.data as Float32Array;
  assert.deepEqual([...past.subarray(0, 9)], [...keyOf(7, 0), ...keyOf(8, 0), ...keyOf(9, 0)]);
  assert.equal(allocator.usage().usedBlocks, 2, 'pad rows draw no blocks');
  assert.throws(() => buildKvStep(store, [{ table: allocator.sequence('x').blocks, cached: 3, tokens: [1] }], -1), /padRows/);
});
