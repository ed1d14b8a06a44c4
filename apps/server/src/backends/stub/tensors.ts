/**
 * Tensors to and from the stub wire format (protocol.ts): numeric data goes out as views of the caller's
 * typed arrays and comes back as typed-array views onto the received frame (no copy); BYTES uses the
 * KServe binary layout (u32 length + bytes per element), the same code the HTTP codec uses.
 */
import type { Tensor, TensorData } from '@inferscope/core';
import { allocateData, elementByteSize, elementCount, isNumericDatatype } from '@inferscope/core/tensor';
import { decodeBinaryData, encodeBinaryData } from '../../infer/binary-data';
import type { WireTensor } from './protocol';

export function tensorBytes(t: Tensor): Uint8Array {
  return encodeBinaryData(t.datatype, t.data);
}

/** A tensor from a received frame; `what` names it in errors ("output 'y' of model 'm'"). */
export function readTensor(w: WireTensor, body: Uint8Array, what: string): Tensor {
  if (!isNumericDatatype(w.datatype) && w.datatype !== 'BYTES') {
    throw new Error(`${what} has unknown datatype '${w.datatype}'`);
  }
  if (!Array.isArray(w.shape) || w.shape.some((d) => !Number.isInteger(d) || d < 0)) {
    throw new Error(`${what} has an invalid shape ${JSON.stringify(w.shape)}`);
  }
  if (w.offset < 0 || w.offset + w.bytes > body.byteLength) {
    throw new Error(`${what}: its ${w.bytes} bytes at offset ${w.offset} lie outside the ${body.byteLength}-byte frame`);
  }
  const count = elementCount(w.shape);
  const raw = body.subarray(w.offset, w.offset + w.bytes);
  let data: TensorData;
  if (w.datatype === 'BYTES') {
    data = decodeBinaryData(w.name, what, 'BYTES', raw, count);
  } else {
    const size = elementByteSize(w.datatype);
    if (w.bytes !== count * size) {
      throw new Error(`${what} carries ${w.bytes} bytes, but ${w.datatype} [${w.shape.join(',')}] needs ${count * size}`);
    }
    const Ctor = allocateData(w.datatype, 0).constructor as new (b: ArrayBufferLike, o: number, n: number) => TensorData;
    // Frames start at offset 0 of their own buffer and tensors at 8-aligned offsets, so the view is legal.
    data = (raw.byteOffset % size === 0 ? new Ctor(raw.buffer, raw.byteOffset, count) : new Ctor(raw.slice().buffer, 0, count));
  }
  return { name: w.name, datatype: w.datatype, shape: [...w.shape], data };
}
