/**
 * Two guards for JSON that comes from clients, shared by every entry point (infer bodies, the other HTTP
 * routes, socket control messages):
 *
 * - nesting depth. JSON.parse itself copes with deep nesting, but everything after it that walks the
 *   value recursively (JSON.stringify, nested `data` arrays, our validators) overflows the stack on
 *   10,000 levels: the client got a 500. Triton refuses documents nested deeper than 100 with the message
 *   below; so do we, with 400. The check walks the parsed value with an explicit stack (no recursion),
 *   stopping at the first level past the limit; scalars cost one typeof each.
 * - length of the messages we send back. Errors quote what the client sent (a name, a value); a 20 MiB
 *   string in a tensor came back in a 20 MiB error. Every error message is capped where it leaves.
 */
export const MAX_JSON_DEPTH = 100;
/** Triton's words (its HTTP front end's HTTP_MAX_JSON_NESTING_DEPTH), which clients match */
export const NESTING_MESSAGE = `JSON nesting depth exceeds maximum allowed limit (${MAX_JSON_DEPTH})`;

/**
 * True when `value` holds arrays/objects nested more than `max` deep. `textLength`, the length of the
 * JSON text `value` was parsed from, in characters or UTF-8 bytes (brackets are one of either): each level
 * takes two brackets, so a text of at most 2 * max + 1 cannot be too deep and is not walked (an infer
 * request's binary-extension header is ~150 bytes).
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

export const MAX_MESSAGE_CHARS = 1000;

/** A message cut to MAX_MESSAGE_CHARS with an ellipsis and how much was left out. */
export function capMessage(message: string, max = MAX_MESSAGE_CHARS): string {
  if (message.length <= max) return message;
  return `${message.slice(0, max)}... (${message.length - max} more characters)`;
}
