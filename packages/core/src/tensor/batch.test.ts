import { test } from 'node:test';
import assert from 'node:assert/strict';
import { concatBatch, splitBatch } from './batch';
import { allocateData, elementCount, fromOrtType, toOrtType } from './dtypes';

test('concat along dim 0 copies into a fresh buffer; split gives back the parts', () => {
  const a = { name: 'x', datatype: 'FP32' as const, shape: [1, 2], data: Float32Array.from([1, 2]) };
  const b = { name: 'x', datatype: 'FP32' as const, shape: [2, 2], data: Float32Array.from([3, 4, 5, 6]) };
  const c = concatBatch([a, b]);
  assert.deepEqual(c.shape, [3, 2]);
  assert.deepEqual([...(c.data as Float32Array)], [1, 2, 3, 4, 5, 6]);
  assert.notEqual((c.data as Float32Array).buffer, a.data.buffer);
  const [pa, pb] = splitBatch(c, [1, 2]);
  assert.deepEqual(pa.shape, [1, 2]);
  assert.deepEqual([...(pb.data as Float32Array)], [3, 4, 5, 6]);
});

test('int64 and bool tensors batch too', () => {
  const t = (v: bigint[]) => ({ name: 'ids', datatype: 'INT64' as const, shape: [1, v.length], data: BigInt64Array.from(v) });
  const c = concatBatch([t([1n, 2n]), t([3n, 4n])]);
  assert.deepEqual([...(c.data as BigInt64Array)], [1n, 2n, 3n, 4n]);
  const bools = concatBatch([{ name: 'b', datatype: 'BOOL', shape: [1], data: Uint8Array.from([1]) }, { name: 'b', datatype: 'BOOL', shape: [1], data: Uint8Array.from([0]) }]);
  assert.deepEqual([...(bools.data as Uint8Array)], [1, 0]);
});

test('mismatches are refused with the shapes in the message', () => {
  const a = { name: 'x', datatype: 'FP32' as const, shape: [1, 2], data: new Float32Array(2) };
  assert.throws(() => concatBatch([a, { ...a, shape: [1, 3], data: new Float32Array(3) }]), /\[1,2\] and \[1,3\] differ beyond the batch dimension/);
  assert.throws(() => concatBatch([a, { ...a, datatype: 'FP64', data: new Float64Array(2) }]), /datatypes FP32 and FP64 differ/);
  assert.throws(() => concatBatch([a, { ...a, data: new Float32Array(3) }]), /has 3 elements but shape \[1,2\] needs 2/);
  assert.throws(() => splitBatch({ ...a, shape: [2, 1] }, [1, 2]), /batch dimension 2 but the batch's requests carry 3 samples/);
});

test('dtype helpers', () => {
  assert.ok(allocateData('FP16', 3) instanceof Uint16Array);
  assert.ok(allocateData('UINT64', 1) instanceof BigUint64Array);
  assert.equal(toOrtType('BOOL'), 'bool');
  assert.equal(fromOrtType('float16'), 'FP16');
  assert.throws(() => fromOrtType('complex64'), /has no KServe datatype/);
  assert.equal(elementCount([]), 1);
  assert.throws(() => elementCount([2, -1]), /unresolved/);
});
