/**
 * Gathering requests into one batch tensor and scattering a batch result back, along dimension 0.
 * This is what a backend does around every batched run (Triton's "gather/scatter" of the batch dim).
 */
import type { Tensor, TensorData } from './types';
import { allocateData, elementCount } from './dtypes';

type NumericData = Exclude<TensorData, Uint8Array[]>;

/**
 * Concatenates tensors of one input along dim 0 into a fresh buffer (never a view of a caller's data,
 * so the result can be transferred to a worker without detaching anything the caller still holds).
 * All parts must share the datatype and the non-batch dims.
 */
export function concatBatch(parts: readonly Tensor[]): Tensor {
  if (parts.length === 0) throw new Error('concatBatch needs at least one tensor');
  const first = parts[0];
  const inner = first.shape.slice(1);
  let rows = 0;
  for (const p of parts) {
    if (p.datatype !== first.datatype) {
      throw new Error(`cannot batch input '${first.name}': datatypes ${first.datatype} and ${p.datatype} differ`);
    }
    if (!sameInnerDims(p.shape, first.shape)) {
      throw new Error(
        `cannot batch input '${first.name}': shapes [${first.shape.join(',')}] and [${p.shape.join(',')}] differ beyond the batch dimension`,
      );
    }
    if (p.shape.length === 0) throw new Error(`cannot batch input '${first.name}': a scalar has no batch dimension`);
    rows += p.shape[0];
  }
  const shape = [rows, ...inner];
  if (first.datatype === 'BYTES') {
    const out: Uint8Array[] = [];
    for (const p of parts) out.push(...(p.data as Uint8Array[]));
    return { name: first.name, datatype: first.datatype, shape, data: out };
  }
  const out = allocateData(first.datatype, elementCount(shape));
  let offset = 0;
  for (const p of parts) {
    const d = p.data as NumericData;
    const expected = elementCount(p.shape);
    if (d.length !== expected) {
      throw new Error(`input '${p.name}' has ${d.length} elements but shape [${p.shape.join(',')}] needs ${expected}`);
    }
    // set() between typed arrays of the same kind is a memcpy; the cast keeps TS from widening the union.
    (out as Float32Array).set(d as Float32Array, offset);
    offset += d.length;
  }
  return { name: first.name, datatype: first.datatype, shape, data: out };
}

/** whether two shapes agree beyond dim 0 (per request of every batch: no slices, no strings) */
function sameInnerDims(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 1; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Splits a batch tensor along dim 0 into parts of the given row counts. The parts are views (subarray)
 * onto the batch buffer: no copy, and they stay valid because nobody else holds that buffer.
 */
export function splitBatch(tensor: Tensor, rows: readonly number[]): Tensor[] {
  if (tensor.shape.length === 0) throw new Error(`cannot split output '${tensor.name}': it has no batch dimension`);
  const total = rows.reduce((a, b) => a + b, 0);
  if (total !== tensor.shape[0]) {
    throw new Error(
      `output '${tensor.name}' has batch dimension ${tensor.shape[0]} but the batch's requests carry ${total} samples`,
    );
  }
  const inner = tensor.shape.slice(1);
  const rowSize = elementCount(inner);
  const out: Tensor[] = [];
  let offset = 0;
  for (const r of rows) {
    const n = r * rowSize;
    const data = Array.isArray(tensor.data)
      ? tensor.data.slice(offset, offset + n)
      : (tensor.data as NumericData).subarray(offset, offset + n);
    out.push({ name: tensor.name, datatype: tensor.datatype, shape: [r, ...inner], data: data as TensorData });
    offset += n;
  }
  return out;
}
