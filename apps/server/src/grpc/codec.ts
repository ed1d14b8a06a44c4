/**
 * ModelInferRequest <-> the protocol-neutral request (infer/parsed-request.ts) and
 * ModelInferResponse, following Triton's gRPC front end (infer_handler.cc): each input's data is either
 * its typed `contents` (the repeated field matching its datatype) or the entry of `raw_input_contents`
 * at its position, never both; outputs always leave as `raw_output_contents`, as Triton's do (tritonclient
 * reads them with as_numpy). Validation against the model is the shared validate-request step.
 */
import type { KServeDatatype, Tensor } from '@inferscope/core';
import { invalid } from '../infer/errors';
import { isKServeDatatype } from '../infer/datatypes';
import { applyRequestParameters, setSequenceFlag, setSequenceId, shmRef } from '../kserve/parse-request';
import { MAX_ELEMENTS, type ParsedInput, type ParsedRequest, type ShmRef } from '../infer/parsed-request';
import { encodeBinaryData } from '../infer/binary-data';

type Param = { parameter_choice?: string } & Record<string, unknown>;
type Params = Record<string, Param> | undefined;

interface Contents {
  bool_contents: boolean[];
  int_contents: number[];
  int64_contents: string[];
  uint_contents: number[];
  uint64_contents: string[];
  fp32_contents: number[];
  fp64_contents: number[];
  bytes_contents: Uint8Array[];
}

export interface GrpcInferRequest {
  model_name: string;
  model_version: string;
  id: string;
  parameters: Params;
  inputs: Array<{ name: string; datatype: string; shape: string[]; parameters: Params; contents: Contents | null }>;
  outputs: Array<{ name: string; parameters: Params }>;
  raw_input_contents: Uint8Array[];
}

/** The contents field each datatype travels in; FP16/BF16 have none (raw only). */
const CONTENTS_FIELD: Partial<Record<KServeDatatype, keyof Contents>> = {
  BOOL: 'bool_contents',
  INT8: 'int_contents', INT16: 'int_contents', INT32: 'int_contents',
  INT64: 'int64_contents',
  UINT8: 'uint_contents', UINT16: 'uint_contents', UINT32: 'uint_contents',
  UINT64: 'uint64_contents',
  FP32: 'fp32_contents',
  FP64: 'fp64_contents',
  BYTES: 'bytes_contents',
};
const FIELDS = Object.keys({
  bool_contents: 0, int_contents: 0, int64_contents: 0, uint_contents: 0, uint64_contents: 0, fp32_contents: 0, fp64_contents: 0, bytes_contents: 0,
} satisfies Record<keyof Contents, 0>) as Array<keyof Contents>;

/** An InferParameter as a plain value (int64 strings become numbers when exact). */
function paramValue(p: Param): unknown {
  const which = p.parameter_choice;
  if (!which) return undefined;
  const v = p[which];
  if (which === 'int64_param' || which === 'uint64_param') {
    const n = Number(v);
    return Number.isSafeInteger(n) ? n : v;
  }
  return v;
}

/**
 * The one 'triton_' request parameter a client may send (tritonclient's enable_empty_final_response on a
 * stream): read by the stream handler (stream-responses.ts), not a parameter of the request itself.
 */
export const ENABLE_EMPTY_FINAL = 'triton_enable_empty_final_response';

/** What a message without parameters reads: nearly every one, so it costs no object or entries list. */
const NO_PARAMS: Readonly<Record<string, unknown>> = Object.freeze({});

function plainParams(params: Params): Readonly<Record<string, unknown>> {
  let out: Record<string, unknown> | undefined;
  for (const k in params) {
    if (k !== ENABLE_EMPTY_FINAL && Object.hasOwn(params, k)) (out ??= {})[k] = paramValue(params[k]);
  }
  return out ?? NO_PARAMS;
}

function shapeOf(name: string, raw: string[]): number[] {
  const shape = new Array<number>(raw.length);
  let elements = 1;
  for (let i = 0; i < raw.length; i++) {
    const d = Number(raw[i]);
    if (!Number.isSafeInteger(d) || d < 0) {
      throw invalid(`Unable to parse 'shape': dimensions of input '${name}' must be non-negative integers, got ${JSON.stringify(raw)}`);
    }
    shape[i] = d;
    elements *= d;
  }
  if (elements > MAX_ELEMENTS) throw invalid(`Unable to parse 'shape': input '${name}' has ${elements} elements, more than the ${MAX_ELEMENTS} allowed`);
  return shape;
}

const SEQUENCE_KEYS = new Set(['sequence_id', 'sequence_start', 'sequence_end']);

/**
 * Triton's gRPC front end reads the sequence parameters by their InferParameter type (infer_handler.cc): an
 * id is int64_param (its 64 bits taken as unsigned) or string_param, never uint64_param; the flags are
 * bool_param. Returns the other parameters, for the checks every protocol shares.
 */
function sequenceParams(params: Params, req: ParsedRequest): Readonly<Record<string, unknown>> {
  const plain = plainParams(params);
  if (!params || !Object.keys(plain).some((k) => SEQUENCE_KEYS.has(k))) return plain;
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(plain)) {
    if (!SEQUENCE_KEYS.has(key)) {
      rest[key] = value;
      continue;
    }
    const p = params[key]!;
    const which = p.parameter_choice;
    if (key === 'sequence_id') {
      if (which === 'int64_param') setSequenceId(req, BigInt.asUintN(64, BigInt(String(p.int64_param))));
      else if (which === 'string_param') setSequenceId(req, String(p.string_param));
      else throw invalid("invalid value type for 'sequence_id' parameter, expected int64_param or string_param.");
    } else {
      if (which !== 'bool_param') throw invalid(`invalid value type for '${key}' parameter, expected bool_param.`);
      setSequenceFlag(req, key as 'sequence_start' | 'sequence_end', p.bool_param === true);
    }
  }
  return rest;
}

export function parseGrpcRequest(msg: GrpcInferRequest): ParsedRequest {
  const model = msg.model_name;
  const req: ParsedRequest = { inputs: [], binaryOutput: true };
  if (msg.id) req.id = msg.id;
  applyRequestParameters(sequenceParams(msg.parameters, req), req);
  const raw = msg.raw_input_contents ?? [];
  if (raw.length > 0 && raw.length !== msg.inputs.length) {
    throw invalid(`expected ${msg.inputs.length} raw_input_contents (one per input) for model '${model}', got ${raw.length}`);
  }
  // a plain loop over the inputs (no closure per message: tsx's keepNames names each one, see http/kserve-routes.ts)
  const seen = msg.inputs.length > 1 ? new Set<string>() : undefined;
  for (let index = 0; index < msg.inputs.length; index++) req.inputs.push(parseInput(msg, index, raw, seen));
  if (msg.outputs.length > 0) req.outputs = msg.outputs.map(parseOutput);
  return req;
}

/** `seen`: the names of the inputs before this one (none for a single input, nearly every request) */
function parseInput(msg: GrpcInferRequest, index: number, raw: Uint8Array[], seen: Set<string> | undefined): ParsedInput {
  const model = msg.model_name;
  const io = msg.inputs[index];
  if (!isKServeDatatype(io.datatype)) throw invalid(`invalid datatype for input ${io.name}`);
  if (seen) {
    if (seen.has(io.name)) throw invalid(`input '${io.name}' already exists in request`);
    seen.add(io.name);
  }
  const input: ParsedInput = { name: io.name, datatype: io.datatype, shape: shapeOf(io.name, io.shape) };
  const inputParams = plainParams(io.parameters);
  if (inputParams.shared_memory_region !== undefined) {
    // The data is in a registered system shared-memory region: read (bounds-checked) before validation.
    input.shm = shmRef(inputParams, `input '${io.name}'`);
    return input;
  }
  const given = io.contents ? FIELDS.filter((f) => (io.contents![f] as unknown[]).length > 0) : [];
  if (given.length > 0 && raw.length > 0) {
    throw invalid(`contents field must not be specified when using raw_input_contents for '${io.name}' for model '${model}'`);
  }
  if (given.length > 0) {
    const field = CONTENTS_FIELD[io.datatype];
    if (given.length > 1 || given[0] !== field) {
      throw invalid(`unexpected explicit tensor data for input tensor '${io.name}' for model '${model}' of type '${io.datatype}': use ${field ?? 'raw_input_contents'}`);
    }
    const values = io.contents![field];
    // Typed contents are flat JS values: the JSON decoder checks count, type and range.
    if (io.datatype === 'BYTES') input.binary = encodeBinaryData('BYTES', values as Uint8Array[]); // length-prefixed, as raw BYTES
    else input.json = values;
  } else if (raw.length > 0) {
    input.binary = raw[index];
  } else if (input.shape.includes(0)) {
    input.binary = new Uint8Array(0); // an empty tensor needs no data
  } else {
    throw invalid(`unable to find data for input tensor '${io.name}' for model '${model}' in request.`);
  }
  return input;
}

function parseOutput(o: GrpcInferRequest['outputs'][number]): NonNullable<ParsedRequest['outputs']>[number] {
  const params = plainParams(o.parameters);
  const out: { name: string; classification?: number; shm?: ShmRef } = { name: o.name };
  if (params.shared_memory_region !== undefined) out.shm = shmRef(params, `output '${o.name}'`);
  if (params.classification !== undefined) {
    const k = params.classification;
    if (typeof k !== 'number') throw invalid("invalid value type for 'classification' parameter, expected int64_param");
    if (k < 0) throw invalid("invalid value for 'classification' parameter, expected >= 0");
    out.classification = k;
  }
  return out;
}

export function grpcInferResponse(model: string, version: string, id: string | undefined, outputs: readonly Tensor[], shmWritten?: ReadonlyMap<string, number>, shmOutputs?: ReadonlyMap<string, ShmRef>) {
  const described = new Array<{ name: string; datatype: string; shape: number[]; parameters: Record<string, unknown> }>(outputs.length);
  const raw = new Array<Buffer>(outputs.length);
  for (let i = 0; i < outputs.length; i++) {
    const t = outputs[i];
    // An output written into shared memory is described by its parameters, with an empty raw entry (so
    // the raw contents stay aligned with the outputs list).
    const written = shmWritten?.get(t.name);
    const ref = written === undefined ? undefined : shmOutputs?.get(t.name);
    described[i] = {
      name: t.name, datatype: t.datatype, shape: t.shape,
      parameters: ref ? { shared_memory_region: { string_param: ref.region }, shared_memory_byte_size: { int64_param: written } } : {},
    };
    if (written !== undefined) {
      raw[i] = Buffer.alloc(0);
      continue;
    }
    const bytes = encodeBinaryData(t.datatype, t.data);
    raw[i] = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  return { model_name: model, model_version: version, id: id ?? '', parameters: {}, outputs: described, raw_output_contents: raw };
}
