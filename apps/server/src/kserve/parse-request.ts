/**
 * Step 1 of decoding an infer request: the framing and the JSON structure, independent of the model.
 * Handles plain JSON bodies and Triton's binary tensor extension (a JSON header of
 * `Inference-Header-Content-Length` bytes followed by the inputs' raw bytes, in input order, each
 * `parameters.binary_data_size` long). Messages follow Triton's HTTP front end where it has one.
 */
import { isUtf8 } from 'node:buffer';
import { depthExceeds, MAX_JSON_DEPTH, NESTING_MESSAGE } from '@inferscope/core/util';
import { invalid } from '../infer/errors';
import { HeaderCache } from './header-cache';
import { isKServeDatatype } from '../infer/datatypes';
import type { KServeDatatype } from '@inferscope/core';
import { elementByteSize } from '@inferscope/core/tensor';
import { MAX_ELEMENTS, type ParsedInput, type ParsedOutput, type ParsedRequest, type ShmRef } from '../infer/parsed-request';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const isUint = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

function member(obj: Json, key: string, what: string): unknown {
  if (!Object.prototype.hasOwnProperty.call(obj, key)) {
    throw invalid(`Unable to parse '${what}': attempt to access non-existing object member '${key}'`);
  }
  return obj[key];
}

/** Parse `Inference-Header-Content-Length` (undefined when absent). */
export function parseHeaderLength(raw: string | string[] | undefined, bodyLength: number): number | undefined {
  if (raw === undefined) return undefined;
  const text = Array.isArray(raw) ? raw[0] : raw;
  if (!/^\s*-?\d+\s*$/.test(text)) throw invalid(`Unable to parse Inference-Header-Content-Length, got: ${text}`);
  const n = Number(text);
  // Triton reads the header as an int32 first (std::stoi), then checks it against the body
  if (n > 2 ** 31 - 1 || n < -(2 ** 31)) {
    throw invalid(`Unable to parse Inference-Header-Content-Length, value is out of range [ -2147483648, 2147483647 ], got: ${text}`);
  }
  if (n < 0 || n > bodyLength) throw invalid(`inference header size should be in range (0, ${bodyLength}), got: ${text.trim()}`);
  return n;
}

const binaryHeaders = new HeaderCache();

/** JSON.parse with the nesting bound, in Triton's words for either failure. */
function parseChecked(text: string): unknown {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw invalid(`failed to parse the request JSON buffer: ${(err as Error).message}`);
  }
  if (depthExceeds(doc, MAX_JSON_DEPTH, text.length)) throw invalid(`failed to parse the request JSON buffer: ${NESTING_MESSAGE}`);
  return doc;
}

/**
 * The request's JSON document; a binary-extension header may come from the cache. Text that is not UTF-8
 * is refused: decoding it would turn the bad bytes into U+FFFD and run the request on changed strings.
 */
function parseJson(body: Uint8Array, jsonEnd: number, binary: boolean): unknown {
  if (jsonEnd === 0) throw invalid('failed to parse the request JSON buffer: The document is empty.');
  const bytes = Buffer.from(body.buffer, body.byteOffset, jsonEnd);
  if (!isUtf8(bytes)) throw invalid('failed to parse the request JSON buffer: the JSON text is not valid UTF-8');
  const text = bytes.toString('utf8');
  return binary ? binaryHeaders.parse(text, parseChecked) : parseChecked(text);
}

/** A whole body that is one JSON document (the generate extension's), checked as an infer request's. */
export function parseJsonBody(body: Uint8Array): unknown {
  return parseJson(body, body.byteLength, false);
}

export function parseInferRequest(body: Uint8Array, headerLength: number | undefined, model: string): ParsedRequest {
  // Triton answers a raw request in binary too: its outputs default to binary_data (a client that sent
  // bytes reads bytes back, after Inference-Header-Content-Length).
  if (headerLength === 0) return { inputs: [], binaryOutput: true, raw: body };
  const jsonEnd = headerLength ?? body.byteLength;
  const doc = parseJson(body, jsonEnd, headerLength !== undefined);
  if (!isObject(doc)) throw invalid('failed to parse the request JSON buffer: the request must be a JSON object');

  const req: ParsedRequest = { inputs: [], binaryOutput: false };
  if (doc.id !== undefined) {
    if (typeof doc.id !== 'string') throw invalid("Unable to parse 'id'");
    req.id = doc.id;
  }
  parseParameters(doc.parameters, req);

  const inputs = member(doc, 'inputs', 'inputs');
  if (!Array.isArray(inputs)) throw invalid("Unable to parse 'inputs': 'inputs' must be an array");
  let cursor = jsonEnd;
  const seen = new Set<string>();
  for (const raw of inputs) {
    if (!isObject(raw)) throw invalid("Unable to parse 'inputs': each input must be an object");
    const input = parseInputHeader(raw);
    if (seen.has(input.name)) throw invalid(`input '${input.name}' already exists in request`);
    seen.add(input.name);
    const size = binaryDataSize(raw);
    if (size !== undefined) {
      if (headerLength === undefined) {
        throw invalid(
          "must specify valid 'Infer-Header-Content-Length' in request header and 'binary_data_size' when passing inputs in binary data format",
        );
      }
      const available = body.byteLength - cursor;
      if (size > available) {
        throw invalid(
          `unexpected size for input '${input.name}', expecting ${size - available} additional bytes for model '${model}'`,
        );
      }
      input.binary = body.subarray(cursor, cursor + size);
      cursor += size;
    } else {
      input.json = raw.data;
    }
    req.inputs.push(input);
  }
  if (cursor !== body.byteLength) throw invalid(`unexpected additional input data for model '${model}'`);

  if (doc.outputs !== undefined) {
    if (!Array.isArray(doc.outputs)) throw invalid("Unable to parse 'outputs'");
    req.outputs = doc.outputs.map(parseOutput);
  }
  return req;
}

function parseParameters(params: unknown, req: ParsedRequest): void {
  if (params === undefined) return;
  if (!isObject(params)) throw invalid('failed to get request params.');
  applyRequestParameters(params, req);
}

/**
 * Request-level parameters, the same for every protocol (gRPC hands its InferParameter values in as
 * plain numbers, strings and booleans). Follows Triton's ParseJsonTritonParams: the known keys have fixed
 * types; any other parameter must be a string, an integer, a boolean or a number.
 */
export function applyRequestParameters(params: Record<string, unknown>, req: ParsedRequest): void {
  for (const [key, value] of Object.entries(params)) {
    if (key === 'priority') {
      if (!isUint(value)) throw invalid("Unable to parse 'priority'");
      req.priority = value;
    } else if (key === 'timeout') {
      if (!isUint(value)) throw invalid("Unable to parse 'timeout'");
      req.timeoutUs = value;
    } else if (key === 'binary_data_output') {
      if (typeof value !== 'boolean') throw invalid("Unable to parse 'binary_data_output'");
      req.binaryOutput = value;
    } else if (key === 'sequence_start' || key === 'sequence_end') {
      if (typeof value !== 'boolean') throw invalid(`Unable to parse '${key}'`);
      setSequenceFlag(req, key, value);
    } else if (key === 'sequence_id') {
      // Triton reads an unsigned integer first, then a string: 42 and "42" are different sequences
      if (isUint(value)) setSequenceId(req, BigInt(value));
      else if (typeof value === 'string') setSequenceId(req, value);
      else throw invalid("Unable to parse 'sequence_id'");
    } else if (key.startsWith('triton_')) {
      throw invalid("parameter keys starting with 'triton_' are reserved for Triton usage and should not be specified.");
    } else if (typeof value !== 'string' && typeof value !== 'boolean' && typeof value !== 'number') {
      throw invalid(`parameter '${key}' has invalid type. It should be either 'int', 'bool', or 'string'.`);
    }
  }
}

/** A request without sequence_id has Triton's id 0 (no sequence); the flags default to false. */
export function setSequenceId(req: ParsedRequest, id: bigint | string): void {
  (req.sequence ??= { id: 0n }).id = id;
}

export function setSequenceFlag(req: ParsedRequest, key: 'sequence_start' | 'sequence_end', on: boolean): void {
  const seq = (req.sequence ??= { id: 0n });
  if (key === 'sequence_start') seq.start = on;
  else seq.end = on;
}

function parseInputHeader(raw: Json): ParsedInput {
  const name = member(raw, 'name', 'name');
  if (typeof name !== 'string') throw invalid("Unable to parse 'name'");
  const datatype = member(raw, 'datatype', 'datatype');
  if (typeof datatype !== 'string') throw invalid("Unable to parse 'datatype'");
  if (!isKServeDatatype(datatype)) throw invalid(`invalid datatype for input ${name}`);
  const shape = member(raw, 'shape', 'shape');
  if (!Array.isArray(shape)) throw invalid("Unable to parse 'shape'");
  const elements = checkedElementCount(name, shape, datatype, Object.prototype.hasOwnProperty.call(raw, 'data'));
  if (elements > MAX_ELEMENTS) {
    throw invalid(`Unable to parse 'shape': input '${name}' has ${elements} elements, more than the ${MAX_ELEMENTS} allowed`);
  }
  // Exactly one place for the data, as Triton's ValidateInputContentType insists.
  const params = raw.parameters;
  if (params !== undefined && !isObject(params)) throw invalid(`Unable to parse 'parameters' of input '${name}'`);
  const hasData = Object.prototype.hasOwnProperty.call(raw, 'data');
  const hasBinary = params !== undefined && Object.prototype.hasOwnProperty.call(params, 'binary_data_size');
  const hasShm = params !== undefined && Object.prototype.hasOwnProperty.call(params, 'shared_memory_region');
  const setCount = Number(hasData) + Number(hasBinary) + Number(hasShm);
  if (setCount !== 1) {
    let msg =
      "Input must set only one of the following fields: 'data', 'binary_data_size' in 'parameters', 'shared_memory_region' in 'parameters'. But";
    if (setCount === 0) msg += ' no field is set';
    else msg += ' set' + (hasData ? " 'data'" : '') + (hasBinary ? " 'binary_data_size'" : '') + (hasShm ? " 'shared_memory_region'" : '');
    throw invalid(msg);
  }
  return { name, datatype, shape: shape as number[], ...(hasShm ? { shm: shmRef(params!, `input '${name}'`) } : {}) };
}

const INT64_MAX = 2n ** 63n - 1n;
const UINT64_LIMIT = 2 ** 64; // the first double a uint64 cannot hold

/**
 * The element count of a JSON shape, refused the way Triton's HTTP front end refuses it: each dimension
 * is read as an unsigned 64-bit integer, then counted as int64 (GetElementCount), so a dimension past
 * INT64_MAX is invalid, a product past it overflows, and for JSON `data` the byte size (count times the
 * element size) must fit as well. Counted in BigInt: JSON.parse holds a dimension past 2^53 only to the
 * nearest double, and that value is what is counted and quoted.
 */
function checkedElementCount(name: string, shape: unknown[], datatype: KServeDatatype, json: boolean): bigint {
  for (const d of shape) {
    if (typeof d !== 'number' || !Number.isInteger(d) || d < 0 || d >= UINT64_LIMIT) {
      throw invalid("Unable to parse 'shape': attempt to access JSON non-unsigned-integer as unsigned-integer");
    }
  }
  const dims = (shape as number[]).map((d) => BigInt(d));
  if (dims.some((d) => d > INT64_MAX)) throw invalid(`invalid shape for input '${name}': shape ${shapeText(dims)} contains one or more invalid dimensions`);
  let count = 1n;
  for (const [i, d] of dims.entries()) {
    if (d === 0n) return 0n;
    if (i > 0 && count > INT64_MAX / d) {
      throw invalid(`invalid shape for input '${name}': shape ${shapeText(dims)} causes total element count to exceed maximum size of ${INT64_MAX}`);
    }
    count = i === 0 ? d : count * d;
  }
  const size = json && datatype !== 'BYTES' ? BigInt(elementByteSize(datatype)) : 1n;
  if (size > 1n && count > INT64_MAX / size) {
    throw invalid(
      `byte size overflow for input '${name}': element count (${count}) * data type size (${size}) exceeds maximum allowed size (${INT64_MAX})`,
    );
  }
  return count;
}

/** a shape as Triton's messages quote it */
function shapeText(dims: readonly bigint[]): string {
  return `[${dims.join(',')}]`;
}

function binaryDataSize(raw: Json): number | undefined {
  const params = raw.parameters as Json | undefined;
  if (!params || !Object.prototype.hasOwnProperty.call(params, 'binary_data_size')) return undefined;
  const v = params.binary_data_size;
  if (!isUint(v)) throw invalid("Unable to parse 'binary_data_size'");
  return v;
}

function parseOutput(raw: unknown): ParsedOutput {
  if (!isObject(raw)) throw invalid("Unable to parse 'outputs'");
  const name = member(raw, 'name', 'name');
  if (typeof name !== 'string') throw invalid("Unable to parse 'name'");
  const out: ParsedOutput = { name };
  const params = raw.parameters;
  if (params === undefined) return out;
  if (!isObject(params)) throw invalid(`Unable to parse 'parameters' of output '${name}'`);
  if (params.shared_memory_region !== undefined) out.shm = shmRef(params, `output '${name}'`);
  if (params.classification !== undefined) {
    if (!isUint(params.classification)) throw invalid("Unable to set 'classification'");
    out.classification = params.classification;
  }
  if (params.binary_data !== undefined) {
    if (typeof params.binary_data !== 'boolean') throw invalid("Unable to parse 'binary_data'");
    out.binary = params.binary_data;
  }
  return out;
}

/** `shared_memory_region` / `_offset` / `_byte_size` of an input's or output's parameters (Triton's names). */
export function shmRef(params: Record<string, unknown>, what: string): ShmRef {
  const region = params.shared_memory_region;
  if (typeof region !== 'string' || region === '') throw invalid(`Unable to parse 'shared_memory_region' of ${what}`);
  const size = params.shared_memory_byte_size;
  if (size === undefined) throw invalid(`'shared_memory_byte_size' is missing for ${what}`);
  if (!isUint(size)) throw invalid(`Unable to parse 'shared_memory_byte_size' of ${what}`);
  const offset = params.shared_memory_offset ?? 0;
  if (!isUint(offset)) throw invalid(`Unable to parse 'shared_memory_offset' of ${what}`);
  return { region, offset, byteSize: size };
}
