/**
 * Step 2 of decoding: check a parsed request against the model, in the order Triton's
 * InferenceRequest::Normalize does (requested outputs, input count, batch size, then per input:
 * known name, datatype, shape, data size), and turn the inputs into Tensors. Also computes what the
 * scheduler needs: the request's batch size and the key of its non-batch shapes.
 */
import type { InferPayload, SchedulerRequest, Tensor } from '@inferscope/core';
import type { SequenceFields } from '@inferscope/core/scheduler';
import { invalid } from './errors';
import { decodeBinaryData } from './binary-data';
import { decodeJsonData } from './json-data';
import { dimsToString, type IOSpec, type ModelSpec } from './model-spec';
import type { ParsedInput, ParsedRequest, ShmRef } from './parsed-request';
import { elementByteSize } from '@inferscope/core/tensor';

export interface DecodedInferRequest {
  id?: string;
  inputs: Tensor[];
  /** requested output names in request order; undefined = every output of the model */
  outputs?: string[];
  /** per requested output: binary or JSON in the response */
  binaryOutputs: Map<string, boolean>;
  /** request-level binary_data_output: default for outputs not named */
  binaryDefault: boolean;
  /** requested outputs to answer with Triton's classification extension: name -> class count */
  classification?: Map<string, number>;
  /** requested outputs to write into system shared memory instead of the response body */
  shmOutputs?: Map<string, ShmRef>;
  priority?: number;
  timeoutUs?: number;
  /** the request's sequence fields, for a stateful model's sequence batcher */
  sequence?: SequenceFields;
  /** samples carried (dim 0 when max_batch_size > 0, else 1) */
  batchSize: number;
  /** non-batch dims of the variable-shape inputs; '' when the model's shapes are all fixed */
  shapeKey: string;
}

const names = (list: Iterable<string>): string => {
  const parts = [...list].map((n) => `'${n}'`);
  return `[${parts.join(',')}]`;
};

export function validateInferRequest(req: ParsedRequest, spec: ModelSpec): DecodedInferRequest {
  const model = spec.name;

  const binaryOutputs = new Map<string, boolean>();
  let outputs: string[] | undefined;
  let classification: Map<string, number> | undefined;
  let shmOutputs: Map<string, ShmRef> | undefined;
  if (req.outputs && req.outputs.length > 0) {
    outputs = [];
    for (const o of req.outputs) {
      // Triton's InferenceRequest::AddOriginalRequestedOutput refuses a name given twice.
      if (binaryOutputs.has(o.name)) throw invalid(`output '${o.name}' already exists in request`);
      if (!spec.outputs.has(o.name)) throw invalid(`unexpected inference output '${o.name}' for model '${model}'`);
      outputs.push(o.name);
      binaryOutputs.set(o.name, o.binary ?? req.binaryOutput);
      if (o.classification !== undefined && o.classification > 0) (classification ??= new Map()).set(o.name, o.classification);
      if (o.shm) (shmOutputs ??= new Map()).set(o.name, o.shm);
    }
  }

  const given = req.raw !== undefined ? [rawInput(req.raw, spec)] : req.inputs;
  if (given.length > spec.inputList.length || given.length < spec.requiredInputCount) {
    const present = new Set(given.map((i) => i.name));
    const missing = spec.inputList.filter((i) => !i.optional && !present.has(i.name)).map((i) => i.name);
    const range =
      spec.inputList.length === spec.requiredInputCount
        ? `expected ${spec.inputList.length} inputs`
        : `expected number of inputs between ${spec.requiredInputCount} and ${spec.inputList.length}`;
    throw invalid(
      `${range} but got ${given.length} inputs for model '${model}'. Got input(s) ${names(present)}, ` +
        `but missing required input(s) ${names(missing)}. Please provide all required input(s).`,
    );
  }

  const configs: IOSpec[] = [];
  for (const input of given) {
    const cfg = spec.inputs.get(input.name);
    if (!cfg) throw invalid(`unexpected inference input '${input.name}' for model '${model}'`);
    configs.push(cfg);
  }
  // A known name list can still miss a required input (e.g. two optional ones given instead).
  if (given.length < spec.inputList.length) {
    const present = new Set(given.map((i) => i.name));
    const missing = spec.inputList.filter((i) => !i.optional && !present.has(i.name));
    if (missing.length > 0) {
      throw invalid(
        `expected ${spec.requiredInputCount} required inputs but got ${given.length} inputs for model '${model}'. ` +
          `Got input(s) ${names(present)}, but missing required input(s) ${names(missing.map((m) => m.name))}. Please provide all required input(s).`,
      );
    }
  }

  // Batch size: every (non shape-tensor) input carries the same dim 0 when the model batches.
  let batch = 0;
  if (spec.maxBatchSize > 0) {
    for (let i = 0; i < given.length; i++) {
      if (configs[i].isShapeTensor) continue;
      const shape = given[i].shape;
      if (shape.length === 0) {
        throw invalid(`input '${given[i].name}' has no shape but model requires batch dimension for '${model}'`);
      }
      if (batch === 0) batch = shape[0];
      else if (shape[0] !== batch) {
        throw invalid(`input '${given[i].name}' batch size does not match other inputs for '${model}'`);
      }
    }
    if (batch > spec.maxBatchSize) {
      throw invalid(`inference request batch-size must be <= ${spec.maxBatchSize} for '${model}'`);
    }
    if (batch === 0) throw invalid(`inference request batch-size must be >= 1 for '${model}'`);
  }

  const tensors: Tensor[] = [];
  const keyParts: string[] = [];
  for (let i = 0; i < given.length; i++) {
    const input = given[i];
    const cfg = configs[i];
    if (input.datatype !== cfg.datatypeName) {
      throw invalid(
        `inference input '${input.name}' data-type is '${input.datatype}', but model '${model}' expects '${cfg.datatypeName}'`,
      );
    }
    const batched = spec.maxBatchSize > 0 && !cfg.isShapeTensor;
    const skip = batched ? 1 : 0;
    if (!shapeMatches(input.shape, skip, cfg.dims)) {
      const expected = batched ? [-1, ...cfg.dims] : cfg.dims;
      const note = batched
        ? ' NOTE: Setting a non-zero max_batch_size in the model config requires a batch dimension to be prepended to each input shape. ' +
          'If you want to specify the full shape including the batch dim in your input dims config, try setting max_batch_size to zero. ' +
          'See the model configuration docs for more info on max_batch_size.'
        : '';
      throw invalid(
        `unexpected shape for input '${input.name}' for model '${model}'. Expected ${dimsToString(expected)}, got ${dimsToString(input.shape)}.${note}`,
      );
    }
    if (cfg.variable) keyParts.push(input.shape.slice(skip).join('x'));
    let count = 1;
    for (const d of input.shape) count *= d;
    const data =
      input.binary !== undefined
        ? decodeBinaryData(input.name, model, input.datatype, input.binary, count)
        : decodeJsonData(input.name, input.datatype, input.json, count);
    tensors.push({ name: input.name, datatype: input.datatype, shape: input.shape, data });
  }

  const decoded: DecodedInferRequest = {
    id: req.id,
    inputs: tensors,
    outputs,
    binaryOutputs,
    binaryDefault: req.binaryOutput,
    priority: req.priority,
    timeoutUs: req.timeoutUs,
    batchSize: spec.maxBatchSize > 0 ? batch : 1,
    shapeKey: spec.variableShapes ? keyParts.join(';') : '',
  };
  // set afterwards, only when present: a conditional spread costs an object and a copy per request
  if (classification) decoded.classification = classification;
  if (req.sequence) decoded.sequence = req.sequence;
  if (shmOutputs) decoded.shmOutputs = shmOutputs;
  return decoded;
}

/**
 * A raw binary request (the body is the only input's data): Triton deduces the input from the config,
 * shape = [1 (batch, when the model batches), ...dims], one variable dim sized from the byte count; BYTES
 * only for a single-element input, whose length prefix Triton adds itself.
 */
function rawInput(bytes: Uint8Array, spec: ModelSpec): ParsedInput {
  if (spec.inputList.length !== 1) {
    throw invalid(
      `Raw request must only have 1 input (found 1) to be deduced but got ${spec.inputList.length} inputs in '${spec.name}' model configuration`,
    );
  }
  const cfg = spec.inputList[0];
  if (cfg.datatype === undefined) throw invalid(`inference input '${cfg.name}' data-type '${cfg.datatypeName}' is not supported`);
  const shape: number[] = spec.maxBatchSize > 0 ? [1] : [];
  let dynamicAxis = -1;
  let elements = 1;
  for (const d of cfg.dims) {
    if (d === -1) {
      if (dynamicAxis !== -1) {
        throw invalid(`The shape of the raw input '${cfg.name}' can not be deduced because there are more than one variable-sized dimension`);
      }
      dynamicAxis = shape.length;
    } else {
      elements *= d;
    }
    shape.push(d);
  }
  if (cfg.datatype === 'BYTES') {
    if (dynamicAxis !== -1 || elements !== 1) {
      throw invalid(`For BYTE datatype raw input '${cfg.name}', the model must have input shape [1]`);
    }
    const framed = new Uint8Array(4 + bytes.byteLength);
    new DataView(framed.buffer).setUint32(0, bytes.byteLength, true);
    framed.set(bytes, 4);
    return { name: cfg.name, datatype: 'BYTES', shape, binary: framed };
  }
  if (dynamicAxis !== -1) shape[dynamicAxis] = elements === 0 ? 0 : Math.floor(bytes.byteLength / elements / elementByteSize(cfg.datatype));
  return { name: cfg.name, datatype: cfg.datatype, shape, binary: bytes };
}

/** whether `shape` past its first `skip` dims (the batch dim) matches the config's dims (-1: any) */
function shapeMatches(shape: readonly number[], skip: number, config: readonly number[]): boolean {
  if (shape.length - skip !== config.length) return false;
  for (let i = 0; i < config.length; i++) if (config[i] !== -1 && config[i] !== shape[i + skip]) return false;
  return true;
}

/** The scheduler's view of a decoded request. priority 0 / absent = the model's default level. */
export function toSchedulerRequest(d: DecodedInferRequest): SchedulerRequest<InferPayload> {
  const req: SchedulerRequest<InferPayload> = {
    batchSize: d.batchSize,
    shapeKey: d.shapeKey,
    payload: { inputs: d.inputs, outputs: d.outputs },
  };
  if (d.priority !== undefined && d.priority > 0) req.priority = d.priority;
  if (d.timeoutUs !== undefined && d.timeoutUs > 0) req.timeoutUs = d.timeoutUs;
  if (d.sequence) req.sequence = d.sequence;
  return req;
}
