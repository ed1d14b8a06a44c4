/**
 * Parsed JSON headers of Triton's binary tensor extension, by their text. A client sends the same header
 * for every request of one shape (perf_analyzer, tritonclient, a load generator: only the tensor bytes
 * after it change), and JSON.parse of that ~200-byte header was ~5% of the HTTP main thread under wrk
 * (V8's object building and key internalisation, cold between requests). Only headers of the binary
 * extension, at most MAX_TEXT bytes (tensor data in JSON differs every time: not worth keeping), at most
 * MAX_ENTRIES, the oldest dropped first. An entry is frozen all the way down, so a reader that tried to
 * change one would throw instead of changing the next request that shares it.
 */
const MAX_ENTRIES = 256;
const MAX_TEXT = 4096;

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

export class HeaderCache {
  private readonly docs = new Map<string, unknown>();

  /** `parse(text)`, or what a header of this same text parsed to before (a failed parse is not kept) */
  parse(text: string, parse: (text: string) => unknown): unknown {
    const hit = this.docs.get(text);
    if (hit !== undefined) return hit;
    const doc = parse(text);
    if (text.length <= MAX_TEXT) {
      if (this.docs.size >= MAX_ENTRIES) this.docs.delete(this.docs.keys().next().value!);
      this.docs.set(text, deepFreeze(doc));
    }
    return doc;
  }
}
