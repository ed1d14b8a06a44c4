/**
 * Datatype facts for tensors in memory: the typed array that carries each KServe datatype, its element
 * size, and ONNX Runtime's name for it ('float32'). The Triton TYPE_* <-> KServe mapping lives in
 * config/datatype.ts. Pure: no Node or DOM APIs.
 */
import type { KServeDatatype, TensorData } from './types';

type NumericDatatype = Exclude<KServeDatatype, 'BYTES'>;

type TypedArrayCtor =
  | Uint8ArrayConstructor | Uint16ArrayConstructor | Uint32ArrayConstructor | BigUint64ArrayConstructor
  | Int8ArrayConstructor | Int16ArrayConstructor | Int32ArrayConstructor | BigInt64ArrayConstructor
  | Float32ArrayConstructor | Float64ArrayConstructor;

interface DatatypeInfo {
  bytes: number;
  array: TypedArrayCtor;
  /** onnxruntime-common's tensor type name */
  ort: string;
}

// FP16 travels as raw IEEE half bits in a Uint16Array (ORT's 'float16' accepts exactly that);
// BOOL as one byte per element, 0 or 1 (ORT's 'bool' is backed by Uint8Array).
const INFO: Record<NumericDatatype, DatatypeInfo> = {
  BOOL: { bytes: 1, array: Uint8Array, ort: 'bool' },
  UINT8: { bytes: 1, array: Uint8Array, ort: 'uint8' },
  UINT16: { bytes: 2, array: Uint16Array, ort: 'uint16' },
  UINT32: { bytes: 4, array: Uint32Array, ort: 'uint32' },
  UINT64: { bytes: 8, array: BigUint64Array, ort: 'uint64' },
  INT8: { bytes: 1, array: Int8Array, ort: 'int8' },
  INT16: { bytes: 2, array: Int16Array, ort: 'int16' },
  INT32: { bytes: 4, array: Int32Array, ort: 'int32' },
  INT64: { bytes: 8, array: BigInt64Array, ort: 'int64' },
  FP16: { bytes: 2, array: Uint16Array, ort: 'float16' },
  FP32: { bytes: 4, array: Float32Array, ort: 'float32' },
  FP64: { bytes: 8, array: Float64Array, ort: 'float64' },
};

const FROM_ORT: Record<string, NumericDatatype> = Object.fromEntries(
  (Object.keys(INFO) as NumericDatatype[]).map((d) => [INFO[d].ort, d]),
);

export function isNumericDatatype(d: string): d is NumericDatatype {
  return Object.prototype.hasOwnProperty.call(INFO, d);
}

/** Bytes per element of a numeric datatype; BYTES has no fixed size and throws. */
export function elementByteSize(d: KServeDatatype): number {
  if (!isNumericDatatype(d)) throw new Error(`datatype ${d} has no fixed element size`);
  return INFO[d].bytes;
}

/** KServe datatype -> onnxruntime tensor type ('float32', 'int64', ...). BYTES -> 'string'. */
export function toOrtType(d: KServeDatatype): string {
  return d === 'BYTES' ? 'string' : INFO[d].ort;
}

/** onnxruntime tensor type -> KServe datatype. */
export function fromOrtType(t: string): KServeDatatype {
  if (t === 'string') return 'BYTES';
  const d = FROM_ORT[t];
  if (!d) throw new Error(`onnxruntime tensor type '${t}' has no KServe datatype`);
  return d;
}

/** A zero-filled typed array of the right kind for `count` elements. */
export function allocateData(d: KServeDatatype, count: number): Exclude<TensorData, Uint8Array[]> {
  if (!isNumericDatatype(d)) throw new Error(`cannot allocate a ${d} tensor as a typed array`);
  return new INFO[d].array(count);
}

/** A typed array of datatype `d` over `count` elements of `buffer` from `byteOffset` (aligned for `d`): no copy. */
export function viewData(d: KServeDatatype, buffer: ArrayBuffer, byteOffset: number, count: number): Exclude<TensorData, Uint8Array[]> {
  if (!isNumericDatatype(d)) throw new Error(`cannot view a ${d} tensor as a typed array`);
  return new INFO[d].array(buffer, byteOffset, count);
}

/** Whether `data` is the typed array kind that carries datatype `d`. */
export function dataMatchesDatatype(d: KServeDatatype, data: TensorData): boolean {
  if (d === 'BYTES') return Array.isArray(data);
  return !Array.isArray(data) && data instanceof INFO[d].array;
}

/** Product of dims; [] (a scalar) has one element. Throws on a negative (unresolved) dim. */
export function elementCount(shape: readonly number[]): number {
  let n = 1;
  for (const d of shape) {
    if (!Number.isInteger(d) || d < 0) throw new Error(`shape [${shape.join(',')}] has an unresolved dimension`);
    n *= d;
  }
  return n;
}
