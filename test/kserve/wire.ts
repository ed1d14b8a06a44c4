/**
 * A tiny client side of the KServe v2 wire format, written independently of the server's codec so that
 * tests (and the serve benchmark) check the server against the protocol, not against itself.
 */
import type { KServeDatatype, Tensor, TensorData } from '@inferscope/core';

const SIZE: Record<KServeDatatype, number> = {
  BOOL: 1, UINT8: 1, UINT16: 2, UINT32: 4, UINT64: 8, INT8: 1, INT16: 2, INT32: 4, INT64: 8,
  FP16: 2, FP32: 4, FP64: 8, BYTES: 0,
};

export function tensorBytes(t: { datatype: KServeDatatype; data: TensorData }): Buffer {
  if (t.datatype === 'BYTES') {
    const parts: Buffer[] = [];
    for (const e of t.data as Uint8Array[]) {
      const len = Buffer.alloc(4);
      len.writeUInt32LE(e.byteLength, 0);
      parts.push(len, Buffer.from(e));
    }
    return Buffer.concat(parts);
  }
  const a = t.data as Exclude<TensorData, Uint8Array[]>;
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength);
}

export function jsonValues(t: { datatype: KServeDatatype; data: TensorData }): unknown[] {
  switch (t.datatype) {
    case 'BOOL':
      return Array.from(t.data as Uint8Array, (v) => v !== 0);
    case 'BYTES':
      return (t.data as Uint8Array[]).map((b) => Buffer.from(b).toString('utf8'));
    case 'INT64':
    case 'UINT64':
      return Array.from(t.data as BigInt64Array, (v) => Number(v));
    case 'FP16':
      return Array.from(t.data as Uint16Array, halfBitsToNumber);
    default:
      return Array.from(t.data as Float32Array);
  }
}

export function halfBitsToNumber(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exp = (bits >> 10) & 0x1f;
  const mant = bits & 0x3ff;
  if (exp === 0) return sign * mant * 2 ** -24;
  if (exp === 31) return mant ? NaN : sign * Infinity;
  return sign * (1 + mant / 1024) * 2 ** (exp - 15);
}

export interface RequestOptions {
  id?: string;
  outputs?: Array<{ name: string; binary?: boolean; parameters?: Record<string, unknown> }>;
  binaryOutput?: boolean;
  parameters?: Record<string, unknown>;
}

function header(inputs: object[], opts: RequestOptions): Record<string, unknown> {
  const h: Record<string, unknown> = { inputs };
  if (opts.id !== undefined) h.id = opts.id;
  const params: Record<string, unknown> = { ...(opts.parameters ?? {}) };
  if (opts.binaryOutput !== undefined) params.binary_data_output = opts.binaryOutput;
  if (Object.keys(params).length) h.parameters = params;
  if (opts.outputs) {
    h.outputs = opts.outputs.map((o) => {
      const parameters = { ...(o.parameters ?? {}), ...(o.binary === undefined ? {} : { binary_data: o.binary }) };
      return Object.keys(parameters).length ? { name: o.name, parameters } : { name: o.name };
    });
  }
  return h;
}

export function jsonRequest(inputs: Tensor[], opts: RequestOptions = {}): string {
  return JSON.stringify(
    header(inputs.map((t) => ({ name: t.name, datatype: t.datatype, shape: t.shape, data: jsonValues(t) })), opts),
  );
}

export function binaryRequest(inputs: Tensor[], opts: RequestOptions = {}): { body: Buffer; headerLength: number } {
  const blobs = inputs.map(tensorBytes);
  const h = Buffer.from(
    JSON.stringify(
      header(
        inputs.map((t, i) => ({
          name: t.name,
          datatype: t.datatype,
          shape: t.shape,
          parameters: { binary_data_size: blobs[i].byteLength },
        })),
        opts,
      ),
    ),
  );
  return { body: Buffer.concat([h, ...blobs]), headerLength: h.byteLength };
}

export interface DecodedOutput {
  name: string;
  datatype: KServeDatatype;
  shape: number[];
  /** JSON data as sent, or for binary outputs the decoded values as numbers/booleans/strings */
  values: unknown[];
  binary: boolean;
}

export interface DecodedResponse {
  model_name: string;
  model_version: string;
  id?: string;
  outputs: DecodedOutput[];
}

/** Decode a response body; `headerLength` from the Inference-Header-Content-Length response header. */
export function parseResponse(body: Buffer, headerLength?: number): DecodedResponse {
  const end = headerLength ?? body.byteLength;
  const json = JSON.parse(body.subarray(0, end).toString('utf8'));
  let off = end;
  const outputs: DecodedOutput[] = json.outputs.map((o: any) => {
    const size = o.parameters?.binary_data_size;
    if (size === undefined) return { name: o.name, datatype: o.datatype, shape: o.shape, values: o.data, binary: false };
    const bytes = body.subarray(off, off + size);
    off += size;
    return { name: o.name, datatype: o.datatype, shape: o.shape, values: valuesFromBytes(o.datatype, bytes), binary: true };
  });
  if (off !== body.byteLength) throw new Error(`response has ${body.byteLength - off} trailing bytes`);
  return { ...json, outputs };
}

export function valuesFromBytes(dt: KServeDatatype, bytes: Buffer): unknown[] {
  const out: unknown[] = [];
  if (dt === 'BYTES') {
    let off = 0;
    while (off < bytes.length) {
      const len = bytes.readUInt32LE(off);
      out.push(bytes.subarray(off + 4, off + 4 + len).toString('utf8'));
      off += 4 + len;
    }
    return out;
  }
  const n = bytes.length / SIZE[dt];
  for (let i = 0; i < n; i++) {
    const o = i * SIZE[dt];
    switch (dt) {
      case 'BOOL': out.push(bytes[o] !== 0); break;
      case 'UINT8': out.push(bytes.readUInt8(o)); break;
      case 'UINT16': out.push(bytes.readUInt16LE(o)); break;
      case 'UINT32': out.push(bytes.readUInt32LE(o)); break;
      case 'UINT64': out.push(Number(bytes.readBigUInt64LE(o))); break;
      case 'INT8': out.push(bytes.readInt8(o)); break;
      case 'INT16': out.push(bytes.readInt16LE(o)); break;
      case 'INT32': out.push(bytes.readInt32LE(o)); break;
      case 'INT64': out.push(Number(bytes.readBigInt64LE(o))); break;
      case 'FP16': out.push(halfBitsToNumber(bytes.readUInt16LE(o))); break;
      case 'FP32': out.push(bytes.readFloatLE(o)); break;
      case 'FP64': out.push(bytes.readDoubleLE(o)); break;
    }
  }
  return out;
}
