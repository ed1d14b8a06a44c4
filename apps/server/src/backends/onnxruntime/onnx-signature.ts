/**
 * Reads the inputs and outputs of an ONNX model file straight from its protobuf, without creating an
 * InferenceSession: config auto-complete and validation need only names, types and shapes, and parsing
 * the graph costs milliseconds where a session would allocate the whole model.
 */
import { READ_LIMITS, readRegularFileSync } from '../../repository/safe-read';
import onnxProto from 'onnx-proto';
import type { DataType } from '@inferscope/core/config';

const { onnx } = onnxProto;

export interface OnnxTensorSignature {
  name: string;
  /** Triton spelling; undefined when ONNX has a type Triton cannot serve (e.g. complex64) */
  data_type: DataType | undefined;
  /** ONNX's own type name, for error messages */
  onnx_type: string;
  /** -1 for a dynamic (symbolic or missing) dimension */
  dims: number[];
}

export interface OnnxSignature {
  inputs: OnnxTensorSignature[];
  outputs: OnnxTensorSignature[];
  opset: number;
}

const E = onnx.TensorProto.DataType;
const TO_TRITON: Record<number, DataType> = {
  [E.FLOAT]: 'TYPE_FP32',
  [E.UINT8]: 'TYPE_UINT8',
  [E.INT8]: 'TYPE_INT8',
  [E.UINT16]: 'TYPE_UINT16',
  [E.INT16]: 'TYPE_INT16',
  [E.INT32]: 'TYPE_INT32',
  [E.INT64]: 'TYPE_INT64',
  [E.STRING]: 'TYPE_STRING',
  [E.BOOL]: 'TYPE_BOOL',
  [E.FLOAT16]: 'TYPE_FP16',
  [E.DOUBLE]: 'TYPE_FP64',
  [E.UINT32]: 'TYPE_UINT32',
  [E.UINT64]: 'TYPE_UINT64',
  [E.BFLOAT16]: 'TYPE_BF16',
};

function toNumber(v: unknown): number {
  // protobufjs gives int64 as a Long object unless it fits; Number() handles both.
  return typeof v === 'number' ? v : Number(String(v));
}

function tensorSignature(vi: onnxProto.onnx.IValueInfoProto): OnnxTensorSignature {
  const tt = vi.type?.tensorType;
  const elem = tt?.elemType ?? 0;
  const dims = (tt?.shape?.dim ?? []).map((d) => {
    if (d.dimValue !== undefined && d.dimValue !== null && !d.dimParam) {
      const n = toNumber(d.dimValue);
      // dim_value 0 with no dim_param is how some exporters write "unknown"; Triton reads it as dynamic too.
      return n > 0 ? n : -1;
    }
    return -1;
  });
  return { name: vi.name ?? '', data_type: TO_TRITON[elem], onnx_type: E[elem] ?? `elem_type ${elem}`, dims };
}

export function parseOnnxSignature(bytes: Uint8Array): OnnxSignature {
  const model = onnx.ModelProto.decode(bytes);
  const graph = model.graph;
  if (!graph) throw new Error('the ONNX file has no graph');
  // Before IR 4, weights were also listed as graph inputs; they are not inputs a client sends.
  const weights = new Set((graph.initializer ?? []).map((t) => t.name));
  const opset = (model.opsetImport ?? []).find((o) => !o.domain)?.version;
  return {
    inputs: (graph.input ?? []).filter((i) => !weights.has(i.name ?? '')).map(tensorSignature),
    outputs: (graph.output ?? []).map(tensorSignature),
    opset: opset === undefined || opset === null ? 0 : toNumber(opset),
  };
}

export function readOnnxSignature(file: string): OnnxSignature {
  let bytes: Uint8Array;
  try {
    bytes = readRegularFileSync(file, READ_LIMITS.model);
  } catch (err) {
    throw new Error(`unable to read ONNX model file '${file}': ${(err as Error).message}`);
  }
  try {
    return parseOnnxSignature(bytes);
  } catch (err) {
    throw new Error(`'${file}' is not a valid ONNX model: ${(err as Error).message}`);
  }
}
