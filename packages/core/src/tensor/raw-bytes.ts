import type { TensorData } from './types';

/**
 * A tensor's raw bytes, as the binary-data extension, gRPC's raw contents and the response cache's key all
 * read them: a view for fixed-size types; for BYTES a copy with each element behind its 4-byte
 * little-endian length (the wire form).
 */
export function rawTensorBytes(data: TensorData): Uint8Array {
  if (!Array.isArray(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  let total = 0;
  for (const e of data) total += 4 + e.byteLength;
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  let off = 0;
  for (const e of data) {
    view.setUint32(off, e.byteLength, true);
    out.set(e, off + 4);
    off += 4 + e.byteLength;
  }
  return out;
}
