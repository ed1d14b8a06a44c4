/**
 * The guard every entry point applies to JSON that comes from a client (infer bodies, other HTTP routes,
 * control messages, teaching mode's control channel): nesting depth. JSON.parse copes with deep nesting,
 * but everything after it that walks the value recursively (JSON.stringify, nested `data` arrays, the
 * validators) overflows the stack on 10,000 levels. Triton refuses documents nested deeper than 100 with
 * the message below; so do we. Pure, so the server and the dashboard refuse the same documents.
 */
export const MAX_JSON_DEPTH = 100;
/** Triton's words (its HTTP front end's HTTP_MAX_JSON_NESTING_DEPTH), which clients match */
export const NESTING_MESSAGE = `JSON nesting depth exceeds maximum allowed limit (${MAX_JSON_DEPTH})`;

/**
 * True when `value` holds arrays/objects nested more than `max` deep. `textLength`, the length of the
 * JSON text `value` was parsed from, in characters or UTF-8 bytes (brackets are one of either): each level
 * takes two brackets, so a text of at most 2 * max + 1 cannot be too deep and is not walked. The walk
 * uses an explicit stack (no recursion) and stops at the first level past the limit.
 */
export function depthExceeds(value: unknown, max = MAX_JSON_DEPTH, textLength = Infinity): boolean {
  if (typeof value !== 'object' || value === null || textLength <= 2 * max + 1) return false;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (depth > max) return true;
    const children = Array.isArray(v) ? v : Object.values(v as Record<string, unknown>);
    for (const c of children) if (typeof c === 'object' && c !== null) stack.push([c, depth + 1]);
  }
  return false;
}

/**
 * The UTF-8 length of a string without encoding it (what Node's Buffer.byteLength says, in any host): a
 * surrogate pair is 4 bytes, a lone surrogate 3 (it is written as U+FFFD).
 */
export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}
