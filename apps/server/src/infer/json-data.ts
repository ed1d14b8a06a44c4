/**
 * KServe JSON tensor data <-> typed arrays. `data` may be flat (row-major) or nested like the shape;
 * both are accepted, as the protocol allows. BYTES elements are JSON strings (UTF-8). FP16 is accepted
 * and produced as plain numbers (Triton refuses FP16 over JSON; converting is strictly more useful and
 * loses nothing a JSON client could express).
 *
 * BYTES as JSON text is exact or refused, never silently changed (issue 56): a string with a lone
 * surrogate (`"\ud800"`, which UTF-8 cannot hold) is refused, and so is an output element that is not
 * valid UTF-8 (a JSON string cannot carry it; the binary data extension can). Both used to become U+FFFD.
 */
import type { KServeDatatype, TensorData } from '@inferscope/core';
import { invalid } from './errors';
import { allocateData } from '@inferscope/core/tensor';
import { INT_RANGE, floatToHalf, halfToFloat } from './datatypes';

const SHAPE_MISMATCH = "Unable to parse 'data': Shape does not match true shape of 'data' field";
const utf8 = new TextEncoder();
const utf8Strict = new TextDecoder('utf-8', { fatal: true });
/** a UTF-16 surrogate with no partner: JSON can escape one, UTF-8 cannot encode it */
const LONE_SURROGATE = /\p{Surrogate}/u;

/** The JSON string of a BYTES element: its bytes as UTF-8 text, or a clear refusal naming `what`. */
export function bytesAsText(b: Uint8Array, what: string, remedy: string): string {
  try {
    return utf8Strict.decode(b);
  } catch {
    throw invalid(`${what} holds bytes that are not valid UTF-8, which a JSON string cannot carry; ${remedy}`);
  }
}

/** A JSON string as BYTES: its UTF-8 encoding, refused when it holds a lone surrogate (no UTF-8 exists for it). */
export function textAsBytes(v: string, what: string): Uint8Array {
  if (LONE_SURROGATE.test(v)) throw invalid(`${what} holds a lone UTF-16 surrogate (an unpaired \\uD800-\\uDFFF escape), which is not text UTF-8 can encode`);
  return utf8.encode(v);
}

/** Number of scalar leaves in a (possibly nested) JSON array, without allocating. */
function countLeaves(value: unknown): number {
  if (!Array.isArray(value)) return 1;
  let n = 0;
  for (let i = 0; i < value.length; i++) {
    const v = value[i];
    n += Array.isArray(v) ? countLeaves(v) : 1;
  }
  return n;
}

function badValue(dt: KServeDatatype, name: string, v: unknown): never {
  throw invalid(`Unable to parse 'data': expected ${dt} values for input '${name}', got ${JSON.stringify(v)}`);
}

type Writer = (v: unknown, i: number) => void;

function writerFor(dt: KServeDatatype, name: string, out: TensorData): Writer {
  switch (dt) {
    case 'BOOL': {
      const a = out as Uint8Array;
      return (v, i) => {
        if (typeof v !== 'boolean') badValue(dt, name, v);
        a[i] = v ? 1 : 0;
      };
    }
    case 'FP32':
    case 'FP64': {
      const a = out as Float32Array | Float64Array;
      return (v, i) => {
        if (typeof v !== 'number') badValue(dt, name, v);
        a[i] = v;
      };
    }
    case 'FP16': {
      const a = out as Uint16Array;
      return (v, i) => {
        if (typeof v !== 'number') badValue(dt, name, v);
        a[i] = floatToHalf(v);
      };
    }
    case 'INT64':
    case 'UINT64': {
      const a = out as BigInt64Array | BigUint64Array;
      const unsigned = dt === 'UINT64';
      return (v, i) => {
        // JSON numbers beyond 2^53 already lost precision in JSON.parse; integral strings are taken too.
        let b: bigint;
        if (typeof v === 'number' && Number.isInteger(v)) b = BigInt(v);
        else if (typeof v === 'string' && /^-?\d+$/.test(v)) b = BigInt(v);
        else badValue(dt, name, v);
        const lo = unsigned ? 0n : -(2n ** 63n);
        const hi = unsigned ? 2n ** 64n - 1n : 2n ** 63n - 1n;
        if (b < lo || b > hi) throw invalid(`Unable to parse 'data': value ${b} is out of range for ${dt} input '${name}'`);
        a[i] = b;
      };
    }
    case 'BYTES': {
      const a = out as Uint8Array[];
      return (v, i) => {
        if (typeof v !== 'string') badValue(dt, name, v);
        a[i] = textAsBytes(v, `Unable to parse 'data': element ${i} of BYTES input '${name}'`);
      };
    }
    default: {
      const a = out as Int8Array | Int16Array | Int32Array | Uint8Array | Uint16Array | Uint32Array;
      const [lo, hi] = INT_RANGE[dt]!;
      return (v, i) => {
        if (typeof v !== 'number' || !Number.isInteger(v)) badValue(dt, name, v);
        if (v < lo || v > hi) throw invalid(`Unable to parse 'data': value ${v} is out of range for ${dt} input '${name}'`);
        a[i] = v;
      };
    }
  }
}

/**
 * Decode `data` for an input of `count` elements. The element count is checked before anything is
 * allocated, so a request claiming a huge shape with little data costs nothing.
 */
export function decodeJsonData(name: string, dt: KServeDatatype, data: unknown, count: number): TensorData {
  if (!Array.isArray(data)) {
    // A scalar is a one-element tensor (e.g. shape [] or [1]); anything else is malformed.
    if (count === 1 && data !== null && typeof data !== 'object') data = [data];
    else throw invalid("Unable to parse 'data': expected a JSON array");
  }
  const arr = data as unknown[];
  let flat = true;
  for (let i = 0; i < arr.length; i++) {
    if (Array.isArray(arr[i])) {
      flat = false;
      break;
    }
  }
  const leaves = flat ? arr.length : countLeaves(arr);
  if (leaves !== count) throw invalid(SHAPE_MISMATCH);
  const out: TensorData = dt === 'BYTES' ? new Array<Uint8Array>(count) : allocateData(dt, count);
  const write = writerFor(dt, name, out);
  if (flat) {
    for (let i = 0; i < count; i++) write(arr[i], i);
  } else {
    let k = 0;
    const walk = (v: unknown): void => {
      if (Array.isArray(v)) for (let i = 0; i < v.length; i++) walk(v[i]);
      else write(v, k++);
    };
    walk(arr);
  }
  return out;
}

/** The JSON text of an output's flat `data` array. Non-finite floats become null (JSON has no NaN). */
export function encodeJsonData(dt: KServeDatatype, data: TensorData, name = ''): string {
  switch (dt) {
    case 'BOOL': {
      const a = data as Uint8Array;
      let s = '';
      for (let i = 0; i < a.length; i++) s += (i ? ',' : '') + (a[i] ? 'true' : 'false');
      return `[${s}]`;
    }
    case 'BYTES':
      return JSON.stringify((data as Uint8Array[]).map((b, i) => bytesAsText(b, `element ${i} of BYTES output '${name}'`, 'ask for it as binary data (the binary_data output parameter)')));
    case 'FP16': {
      const a = data as Uint16Array;
      const vals = new Array<string>(a.length);
      for (let i = 0; i < a.length; i++) vals[i] = finite(halfToFloat(a[i]));
      return `[${vals.join(',')}]`;
    }
    case 'FP32':
    case 'FP64': {
      const a = data as Float32Array | Float64Array;
      let ok = true;
      for (let i = 0; i < a.length; i++) if (!Number.isFinite(a[i])) { ok = false; break; }
      if (ok) return `[${a.join(',')}]`;
      return `[${Array.from(a, finite).join(',')}]`;
    }
    default:
      // Integer typed arrays (including BigInt ones) print exact decimal digits.
      return `[${(data as Int32Array).join(',')}]`;
  }
}

function finite(v: number): string {
  return Number.isFinite(v) ? String(v) : 'null';
}
