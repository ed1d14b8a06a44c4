/**
 * A batch position's sequence inputs as tensors, and a model's state outputs back as state: the one place
 * where a backend turns a `SequenceStep` into what its framework reads, so ONNX, PyTorch and python models
 * get the same control values and state bytes.
 */
import { tritonToKServeDatatype } from '../../config/datatype';
import type { DataType } from '../../config/types';
import { allocateData, elementCount, viewData } from '../../tensor/dtypes';
import type { KServeDatatype, Tensor } from '../../tensor/types';
import type { StateSpec } from './state';
import type { ControlValue, SequenceStep, StateValue } from './types';

const kserve = (dt: string): KServeDatatype => {
  const k = tritonToKServeDatatype(dt as DataType);
  if (!k || k === 'BF16') throw new Error(`no tensor datatype for ${dt}`);
  return k;
};

function controlTensor(c: ControlValue, batched: boolean): Tensor {
  const datatype = kserve(c.dataType);
  const shape = batched ? [1, 1] : [1];
  if (datatype === 'BYTES') return { name: c.name, datatype, shape, data: [new TextEncoder().encode(String(c.value))] };
  const data = allocateData(datatype, 1);
  if (data instanceof BigInt64Array || data instanceof BigUint64Array) data[0] = BigInt(c.value as bigint);
  else data[0] = typeof c.value === 'boolean' ? Number(c.value) : Number(c.value);
  return { name: c.name, datatype, shape, data };
}

/** A state value as a tensor named `name` (its bytes copied, so the typed array is aligned). */
export function stateTensor(name: string, v: StateValue): Tensor {
  const datatype = kserve(v.dataType);
  const bytes = new Uint8Array(v.data); // a copy: aligned, and the model may not write the sequence's state
  return { name, datatype, shape: [...v.shape], data: viewData(datatype, bytes.buffer, 0, elementCount(v.shape)) };
}

/**
 * The inputs the batcher adds at one position: every control input (shape [1], with the batch dimension
 * when the model batches) and every implicit state input.
 */
export function stepInputs(step: SequenceStep, batched: boolean): Tensor[] {
  const out = step.controls.map((c) => controlTensor(c, batched));
  for (const [name, v] of Object.entries(step.stateIn)) out.push(stateTensor(name, v));
  return out;
}

/**
 * Splits a position's outputs: the state outputs (by output_name, as the batcher wants them in
 * `step.stateOut`) and the rest, which the client sees (Triton never returns a state output).
 */
export function splitStateOutputs(outputs: readonly Tensor[], specs: readonly StateSpec[]): { state: Record<string, StateValue>; rest: Tensor[] } {
  const byOutput = new Map(specs.map((s) => [s.outputName, s]));
  const state: Record<string, StateValue> = {};
  const rest: Tensor[] = [];
  for (const t of outputs) {
    const spec = byOutput.get(t.name);
    if (!spec || Array.isArray(t.data)) {
      rest.push(t);
      continue;
    }
    const d = t.data;
    state[t.name] = { dataType: spec.dataType, shape: [...t.shape], data: new Uint8Array(d.buffer, d.byteOffset, d.byteLength).slice() };
  }
  return { state, rest };
}

/** A null request's inputs: the shapes of a real request's, zeros for data (Triton's CopyAsNull). */
export function zeroedInputs(inputs: readonly Tensor[]): Tensor[] {
  return inputs.map((t) => ({
    ...t,
    shape: [...t.shape],
    data: Array.isArray(t.data) ? t.data.map(() => new Uint8Array(0)) : allocateData(t.datatype, elementCount(t.shape)),
  }));
}
