/**
 * Triton TYPE_* data types (config) <-> KServe v2 datatype strings (wire, Tensor), and element sizes.
 * Triton's TYPE_STRING is KServe's BYTES; BF16 exists in Triton but not in our Tensor layer
 * (no typed array carries it), so it maps to the string 'BF16' outside KServeDatatype.
 */
import type { KServeDatatype } from '../tensor/types';
import type { DataType } from './types';

export type ConfigKServeDatatype = KServeDatatype | 'BF16';

const TRITON_TO_KSERVE: Record<Exclude<DataType, 'TYPE_INVALID'>, ConfigKServeDatatype> = {
  TYPE_BOOL: 'BOOL',
  TYPE_UINT8: 'UINT8',
  TYPE_UINT16: 'UINT16',
  TYPE_UINT32: 'UINT32',
  TYPE_UINT64: 'UINT64',
  TYPE_INT8: 'INT8',
  TYPE_INT16: 'INT16',
  TYPE_INT32: 'INT32',
  TYPE_INT64: 'INT64',
  TYPE_FP16: 'FP16',
  TYPE_FP32: 'FP32',
  TYPE_FP64: 'FP64',
  TYPE_STRING: 'BYTES',
  TYPE_BF16: 'BF16',
};

const KSERVE_TO_TRITON = Object.fromEntries(
  Object.entries(TRITON_TO_KSERVE).map(([triton, kserve]) => [kserve, triton]),
) as Record<ConfigKServeDatatype, Exclude<DataType, 'TYPE_INVALID'>>;

/** 'TYPE_FP32' -> 'FP32', 'TYPE_STRING' -> 'BYTES'; undefined for TYPE_INVALID or an unknown name. */
export function tritonToKServeDatatype(dt: DataType): ConfigKServeDatatype | undefined {
  return (TRITON_TO_KSERVE as Record<string, ConfigKServeDatatype>)[dt];
}

/** 'FP32' -> 'TYPE_FP32', 'BYTES' -> 'TYPE_STRING'; undefined for anything that is not a KServe datatype. */
export function kserveToTritonDatatype(dt: string): DataType | undefined {
  return Object.prototype.hasOwnProperty.call(KSERVE_TO_TRITON, dt)
    ? KSERVE_TO_TRITON[dt as ConfigKServeDatatype]
    : undefined;
}

const BYTE_SIZE: Record<ConfigKServeDatatype, number> = {
  BOOL: 1,
  UINT8: 1, UINT16: 2, UINT32: 4, UINT64: 8,
  INT8: 1, INT16: 2, INT32: 4, INT64: 8,
  FP16: 2, BF16: 2, FP32: 4, FP64: 8,
  BYTES: 0,
};

/**
 * Bytes per element for either spelling ('TYPE_FP32' or 'FP32'). 0 for variable-size types
 * (TYPE_STRING/BYTES) and for TYPE_INVALID, as Triton's GetDataTypeByteSize does.
 */
export function datatypeByteSize(dt: DataType | ConfigKServeDatatype): number {
  const kserve = dt.startsWith('TYPE_') ? tritonToKServeDatatype(dt as DataType) : (dt as ConfigKServeDatatype);
  return kserve === undefined ? 0 : (BYTE_SIZE[kserve] ?? 0);
}

export function isDataType(value: string): value is DataType {
  return value === 'TYPE_INVALID' || Object.prototype.hasOwnProperty.call(TRITON_TO_KSERVE, value);
}
