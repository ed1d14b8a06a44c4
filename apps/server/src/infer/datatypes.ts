/**
 * Per-datatype facts the codec needs beyond core's tensor/dtypes.ts (typed arrays, element sizes): value
 * ranges and the FP16 <-> number conversion (FP16 travels as raw Uint16 bits, see core/src/tensor/types.ts).
 */
import type { KServeDatatype } from '@inferscope/core';
import { isNumericDatatype } from '@inferscope/core/tensor';

/** Inclusive integer ranges; 64-bit types are checked as BigInt. */
export const INT_RANGE: Partial<Record<KServeDatatype, [number, number]>> = {
  UINT8: [0, 255], UINT16: [0, 65535], UINT32: [0, 4294967295],
  INT8: [-128, 127], INT16: [-32768, 32767], INT32: [-2147483648, 2147483647],
};

export function isKServeDatatype(value: unknown): value is KServeDatatype {
  return typeof value === 'string' && (value === 'BYTES' || isNumericDatatype(value));
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** IEEE 754 binary32 -> binary16 bits, round to nearest even; overflow -> infinity. */
export function floatToHalf(value: number): number {
  f32[0] = value;
  const x = u32[0];
  const sign = (x >>> 16) & 0x8000;
  const exp = (x >>> 23) & 0xff;
  let mant = x & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0); // inf / nan
  let e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign; // too small: signed zero
    mant |= 0x800000; // subnormal: shift the implicit bit in
    const shift = 14 - e;
    let half = mant >>> shift;
    const rem = mant & ((1 << shift) - 1);
    const mid = 1 << (shift - 1);
    if (rem > mid || (rem === mid && (half & 1))) half++;
    return sign | half;
  }
  let half = (e << 10) | (mant >>> 13);
  const rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem === 0x1000 && (half & 1))) half++; // may carry into the exponent: still right
  return sign | half;
}

export function halfToFloat(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exp = (bits >>> 10) & 0x1f;
  const mant = bits & 0x3ff;
  if (exp === 0) return sign * mant * 2 ** -24;
  if (exp === 0x1f) return mant ? NaN : sign * Infinity;
  return sign * (1 + mant / 1024) * 2 ** (exp - 15);
}
