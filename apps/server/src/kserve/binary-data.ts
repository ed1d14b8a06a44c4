/**
 * Triton's binary tensor data extension: raw little-endian element bytes, row-major; BYTES elements are
 * each a 4-byte little-endian length followed by that many bytes. (This host, like every platform Node
 * ships for, is little-endian, so typed arrays read the bytes as they are.)
 */
import type { KServeDatatype, TensorData } from '@inferscope/core';
import { invalid } from './errors';
import { allocateData, elementByteSize } from '@inferscope/core/tensor/dtypes.ts';

/**
 * Decode one input's bytes. The result always owns its own ArrayBuffer (offset 0, exact length): the
 * request body may live in Node's shared Buffer pool, and backends are allowed to transfer tensor
 * buffers to worker threads, which would detach the whole pool.
 */
export function decodeBinaryData(
  input: string,
  model: string,
  dt: KServeDatatype,
  bytes: Uint8Array,
  count: number,
): TensorData {
  if (dt === 'BYTES') return decodeBytesElements(input, model, bytes, count);
  const expected = count * elementByteSize(dt);
  if (bytes.byteLength !== expected) {
    throw invalid(
      `input byte size mismatch for input '${input}' for model '${model}'. Expected ${expected}, got ${bytes.byteLength}`,
    );
  }
  const out = allocateData(dt, count);
  new Uint8Array(out.buffer).set(bytes);
  return out;
}

function decodeBytesElements(input: string, model: string, bytes: Uint8Array, count: number): Uint8Array[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: Uint8Array[] = [];
  let off = 0;
  while (off < bytes.byteLength) {
    const len = off + 4 <= bytes.byteLength ? view.getUint32(off, true) : -1;
    if (len < 0 || off + 4 + len > bytes.byteLength) {
      throw invalid(`element byte size indicator exceeds the end of the buffer for input '${input}' for model '${model}'`);
    }
    out.push(bytes.slice(off + 4, off + 4 + len));
    off += 4 + len;
  }
  if (out.length !== count) {
    throw invalid(`expected ${count} string elements for inference input '${input}' for model '${model}', got ${out.length}`);
  }
  return out;
}

/** The raw bytes of an output tensor (a view for fixed-size types; length-prefixed copy for BYTES). */
export function encodeBinaryData(dt: KServeDatatype, data: TensorData): Uint8Array {
  if (dt !== 'BYTES') {
    const a = data as Exclude<TensorData, Uint8Array[]>;
    return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  }
  const elems = data as Uint8Array[];
  let total = 0;
  for (const e of elems) total += 4 + e.byteLength;
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  let off = 0;
  for (const e of elems) {
    view.setUint32(off, e.byteLength, true);
    out.set(e, off + 4);
    off += 4 + e.byteLength;
  }
  return out;
}
