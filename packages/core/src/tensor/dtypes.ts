/**
 * Datatype facts shared by the KServe codec, the config engine and the backends: the three spellings of
 * one datatype (KServe `FP32`, Triton config `TYPE_FP32`, ONNX Runtime `float32`), its element size, and
 * the typed array that carries it. Pure: no Node or DOM APIs.
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

/** Bytes per element; BYTES has no fixed size and throws. */
export function datatypeByteSize(d: KServeDatatype): number {
  if (!isNumericDatatype(d)) throw new Error(`datatype ${d} has no fixed element size`);
  return INFO[d].bytes;
}

/** `FP32` -> `TYPE_FP32` (Triton's config spelling; BYTES is TYPE_STRING there). */
export function toConfigDatatype(d: KServeDatatype): string {
  return d === 'BYTES' ? 'TYPE_STRING' : `TYPE_${d}`;
}

/** `TYPE_FP32` -> `FP32`; throws on a type the KServe protocol cannot carry (e.g. TYPE_BF16). */
export function fromConfigDatatype(t: string): KServeDatatype {
  if (t === 'TYPE_STRING') return 'BYTES';
  const d = t.startsWith('TYPE_') ? t.slice(5) : t;
  if (!isNumericDatatype(d)) throw new Error(`unsupported datatype ${t}`);
  return d;
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
