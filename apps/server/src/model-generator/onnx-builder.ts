/**
 * Just enough of an ONNX graph builder to write our demo models with onnx-proto: initializers (weights)
 * stored as little-endian raw bytes, nodes with attributes, and inputs/outputs whose dims are numbers or
 * symbolic names ('batch', 'sequence') for dynamic dimensions.
 */
import onnxProto from 'onnx-proto';

// onnx-proto is CommonJS: the named import fails under ESM, the default import works (see FINDINGS.md).
const { onnx } = onnxProto;

export const IR_VERSION = 8;
export const OPSET = 17;

export type Dim = number | string;
const T = onnx.TensorProto.DataType;
/** ONNX element types by onnxruntime's names (the demo models use float32 and int64; tests use the rest). */
const ELEM = {
  float32: T.FLOAT,
  float64: T.DOUBLE,
  float16: T.FLOAT16,
  int8: T.INT8,
  int16: T.INT16,
  int32: T.INT32,
  int64: T.INT64,
  uint8: T.UINT8,
  uint16: T.UINT16,
  uint32: T.UINT32,
  uint64: T.UINT64,
  bool: T.BOOL,
  string: T.STRING,
} as const;
export type ElemType = keyof typeof ELEM;

type AttrValue = number | number[] | string;

export class GraphBuilder {
  private readonly nodes: onnxProto.onnx.INodeProto[] = [];
  private readonly initializers: onnxProto.onnx.ITensorProto[] = [];
  private readonly inputs: onnxProto.onnx.IValueInfoProto[] = [];
  private readonly outputs: onnxProto.onnx.IValueInfoProto[] = [];
  private counter = 0;

  constructor(private readonly name: string) {}

  input(name: string, type: ElemType, dims: Dim[]): string {
    this.inputs.push(valueInfo(name, type, dims));
    return name;
  }

  output(name: string, type: ElemType, dims: Dim[]): void {
    this.outputs.push(valueInfo(name, type, dims));
  }

  /** A float32 weight tensor; the raw bytes are written little-endian whatever the host is. */
  weight(name: string, dims: number[], values: Float32Array): string {
    const raw = new Uint8Array(values.length * 4);
    const view = new DataView(raw.buffer);
    for (let i = 0; i < values.length; i++) view.setFloat32(i * 4, values[i], true);
    this.initializers.push({ name, dims, dataType: ELEM.float32, rawData: raw });
    return name;
  }

  /**
   * Adds a node; returns its (first) output name. `out` names the output, else one is made up. `name`
   * names the node, else `<op>_<index>`: onnxruntime quotes it in a failure, so a node that checks an
   * input can say which rule the input broke.
   */
  node(op: string, inputs: string[], attrs: Record<string, AttrValue> = {}, out?: string, name?: string): string {
    const output = out ?? `${op.toLowerCase()}_${this.counter++}`;
    this.nodes.push({
      opType: op,
      name: name ?? `${op}_${this.nodes.length}`,
      input: inputs,
      output: [output],
      attribute: Object.entries(attrs).map(([k, v]) => attribute(k, v)),
    });
    return output;
  }

  /** The serialized model: deterministic bytes for deterministic calls. */
  encode(docString: string): Uint8Array {
    const model = onnx.ModelProto.create({
      irVersion: IR_VERSION,
      producerName: 'inferscope-generate-models',
      producerVersion: '1',
      docString,
      opsetImport: [{ domain: '', version: OPSET }],
      graph: {
        name: this.name,
        node: this.nodes,
        initializer: this.initializers,
        input: this.inputs,
        output: this.outputs,
      },
    });
    return onnx.ModelProto.encode(model).finish();
  }
}

function valueInfo(name: string, type: ElemType, dims: Dim[]): onnxProto.onnx.IValueInfoProto {
  return {
    name,
    type: {
      tensorType: {
        elemType: ELEM[type],
        shape: { dim: dims.map((d) => (typeof d === 'string' ? { dimParam: d } : { dimValue: d })) },
      },
    },
  };
}

function attribute(name: string, v: AttrValue): onnxProto.onnx.IAttributeProto {
  const T = onnx.AttributeProto.AttributeType;
  if (typeof v === 'string') return { name, type: T.STRING, s: new TextEncoder().encode(v) };
  if (Array.isArray(v)) return { name, type: T.INTS, ints: v };
  if (Number.isInteger(v)) return { name, type: T.INT, i: v };
  return { name, type: T.FLOAT, f: v };
}
