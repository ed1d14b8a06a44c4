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
 * Triton's input map is) that is both hashed and kept whole for comparison on a hit.
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

/** Writes parts as `[u32 length][bytes]` so no two different keys encode to the same string. */
class KeyWriter {
  private readonly chunks: Uint8Array[] = [];
  private size = 0;

  u32(n: number): void {
    const b = new Uint8Array(4);
    new DataView(b.buffer).setUint32(0, n >>> 0, true);
    this.push(b);
  }

  f64(n: number): void {
    const b = new Uint8Array(8);
    new DataView(b.buffer).setFloat64(0, n, true);
    this.push(b);
  }

  str(s: string): void {
    this.bytes(text.encode(s));
  }

  bytes(b: Uint8Array): void {
    this.u32(b.length);
    this.push(b);
  }

  private push(b: Uint8Array): void {
    this.chunks.push(b);
    this.size += b.length;
  }

  finish(): Uint8Array {
    const out = new Uint8Array(this.size);
    let at = 0;
    for (const c of this.chunks) {
      out.set(c, at);
      at += c.length;
    }
    return out;
  }
}

const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

export function encodeKey(parts: CacheKeyParts): Uint8Array {
  const w = new KeyWriter();
  w.str(parts.model);
  w.f64(parts.version);
  const inputs = [...parts.inputs].sort(byName);
  w.u32(inputs.length);
  for (const input of inputs) {
    w.str(input.name);
    w.str(input.datatype);
    w.u32(input.shape.length);
    for (const d of input.shape) w.f64(d);
    w.bytes(input.bytes);
  }
  w.u32(parts.outputs.length);
  for (const output of parts.outputs) w.str(output);
  return w.finish();
}

export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
