import type { KServeDatatype } from '@inferscope/core';

/** Where one tensor's bytes lie in the frame body. */
export interface WireTensor {
  name: string;
  datatype: KServeDatatype;
  shape: number[];
  offset: number;
  bytes: number;
}
