/**
 * The response cache's key: what must be equal for a stored response to be the right answer.
 *
 * Triton hashes the model name, the resolved version and each input's name and raw bytes. InferScope also
 * keys on each input's datatype and shape (so `[1,4]` and `[2,2]` holding the same bytes, or the same bytes
 * read as INT32 and FP32, never share an answer) and on the requested outputs (a request for one output
 * must not be answered with another's set, and the classification extension changes the answer): a
 * deliberate difference, stated in the README. (Classification is applied by the front end to the outputs
 * the model returned, hit or miss, so it needs no place in the key.)
 *
 * The key is encoded once into one canonical byte string (length-prefixed parts, inputs sorted by name as
 * Triton's input map is) that is both hashed (hash.ts) and kept whole for comparison on a hit.
 */

export interface CacheKeyInput {
  readonly name: string;
  readonly datatype: string;
  readonly shape: readonly number[];
  /** the tensor's raw bytes (BYTES tensors in their length-prefixed wire form) */
  readonly bytes: Uint8Array;
}


export interface CacheKeyParts {
  readonly model: string;
  /** the version that runs, never the request's "latest" */
  readonly version: number;
  readonly inputs: readonly CacheKeyInput[];
  /** the outputs the request names, in its order; empty = every output of the model */
  readonly outputs: readonly string[];
}

const text = new TextEncoder();
/** UTF-8 of a name: ASCII (nearly every model, tensor and datatype name) without a call into TextEncoder */
function utf8(x: string): Uint8Array {
  const out = new Uint8Array(x.length);
  for (let i = 0; i < x.length; i++) {
    const c = x.charCodeAt(i);
    if (c >= 0x80) return text.encode(x);
    out[i] = c;
  }
  return out;
}
const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * Parts are written as `[u32 length][bytes]` (numbers as u32 / f64) so no two different keys encode to the
 * same string. Two passes: sizes first, then one buffer written through one DataView; a lookup encodes a
 * key on the server's main thread for every request, so it must not allocate per part.
 */
export function encodeKey(parts: CacheKeyParts): Uint8Array {
  const inputs = [...parts.inputs].sort(byName);
  const strings = [parts.model, ...inputs.flatMap((i) => [i.name, i.datatype]), ...parts.outputs].map(utf8);
  let size = 8 + 4 + 4;
  for (const b of strings) size += 4 + b.length;
  for (const input of inputs) size += 4 + 8 * input.shape.length + 4 + input.bytes.length;
  const w = new KeyWriter(size);
  let next = 0;
  w.bytes(strings[next++]!); // the model
  w.f64(parts.version);
  w.u32(inputs.length);
  for (const input of inputs) {
    w.bytes(strings[next++]!); // its name
    w.bytes(strings[next++]!); // its datatype
    w.u32(input.shape.length);
    for (const d of input.shape) w.f64(d);
    w.bytes(input.bytes);
  }
  w.u32(parts.outputs.length);
  for (let i = 0; i < parts.outputs.length; i++) w.bytes(strings[next++]!);
  return w.out;
}

/** One key's buffer, written in order (a class, not closures made per key: see ARCHITECTURE.md, hot paths). */
class KeyWriter {
  readonly out: Uint8Array;
  private readonly view: DataView;
  private at = 0;

  constructor(size: number) {
    this.out = new Uint8Array(size);
    this.view = new DataView(this.out.buffer);
  }

  u32(n: number): void {
    this.view.setUint32(this.at, n >>> 0, true);
    this.at += 4;
  }

  f64(n: number): void {
    this.view.setFloat64(this.at, n, true);
    this.at += 8;
  }

  /** `[u32 length][bytes]` */
  bytes(b: Uint8Array): void {
    this.u32(b.length);
    this.out.set(b, this.at);
    this.at += b.length;
  }
}

export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let i = 0;
  // keys are fresh buffers (encodeKey), so 4-byte words can be compared: a quarter of the steps of a hit
  if (a.byteOffset % 4 === 0 && b.byteOffset % 4 === 0) {
    const words = a.length >>> 2;
    const wa = new Uint32Array(a.buffer, a.byteOffset, words);
    const wb = new Uint32Array(b.buffer, b.byteOffset, words);
    for (; i < words; i++) if (wa[i] !== wb[i]) return false;
    i = words << 2;
  }
  for (; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
