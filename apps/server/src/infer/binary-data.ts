/**
 * Triton's binary tensor data extension: raw little-endian element bytes, row-major; BYTES elements are
 * each a 4-byte little-endian length followed by that many bytes. (This host, like every platform Node
 * ships for, is little-endian, so typed arrays read the bytes as they are.)
 */
import type { KServeDatatype, TensorData } from '@inferscope/core';
import { invalid } from './errors';
import { elementByteSize, rawTensorBytes, viewData } from '@inferscope/core/tensor';

/**
 * Decode one input's bytes, without a new ArrayBuffer per request (this is the hot path: allocating one
 * took ~3% of the main thread at 14k req/s). When the bytes sit at an offset aligned for the element type
 * the result is a view on them (the request body, which lives until the request is answered); otherwise
 * they are copied once into Node's pooled allocation (8-byte aligned slices). So the result never owns a
 * whole ArrayBuffer: a backend that transfers buffers to a worker thread must copy first (onnxruntime's
 * gather concatenates into a fresh buffer), as it would anyway to batch.
 */
export function decodeBinaryData(
  input: string,
  model: string,
  dt: KServeDatatype,
  bytes: Uint8Array,
  count: number,
): TensorData {
  if (dt === 'BYTES') return decodeBytesElements(input, model, bytes, count);
  const size = elementByteSize(dt);
  const expected = count * size;
  if (bytes.byteLength !== expected) throw byteSizeMismatch(input, model, expected, bytes.byteLength);
  let source = bytes;
  if (bytes.byteOffset % size !== 0) {
    source = Buffer.allocUnsafe(expected);
    source.set(bytes);
  }
  return viewData(dt, source.buffer as ArrayBuffer, source.byteOffset, count);
}

/** Triton's refusal of tensor bytes that are not the tensor's size (in the body or in shared memory). */
export function byteSizeMismatch(input: string, model: string, expected: number, got: number) {
  return invalid(`input byte size mismatch for input '${input}' for model '${model}'. Expected ${expected}, got ${got}`);
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

/** The raw bytes of an output tensor (a view for fixed-size types; length-prefixed copy for BYTES): core's one encoding. */
export function encodeBinaryData(dt: KServeDatatype, data: TensorData): Uint8Array {
  // BYTES data is the one TensorData that is an array of elements, so the datatype adds nothing to it
  void dt;
  return rawTensorBytes(data);
}
