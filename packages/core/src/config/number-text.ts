/**
 * The one reading of a number written as text by a person: a model's `parameters` value (string_value)
 * and a command-line option. Strict on purpose: JavaScript's Number() takes '', ' 7', '+5', '1e3' and
 * '0x10', and a value that means something else than it says (an empty execute_timeout_ms read as "no
 * limit", '0x10' as 16) is worse than a refusal. Accepted: plain digits, and for a rule with decimals a
 * '.' followed by at most that many digits; nothing else (no sign, space, exponent, hex, separator).
 * Every refusal has the same words: `<what> must be an integer >= 0 and <= N (plain digits), got '<text>'`.
 */

export interface NumberRule {
  min: number;
  /** default Number.MAX_SAFE_INTEGER (shown in the refusal only when set) */
  max?: number;
  /** digits allowed after a '.': 0 or absent = an integer; Infinity = any */
  decimals?: number;
}

const INTEGER = /^[0-9]+$/;
const DECIMAL = /^[0-9]+(?:\.[0-9]+)?$/;

/** The number `text` states, or the refusal (`what` names it: "parameter 'x' of model 'm'", "--rate"). */
export function readNumberText(text: string, what: string, rule: NumberRule): number | { error: string } {
  const decimals = rule.decimals ?? 0;
  const max = rule.max ?? Number.MAX_SAFE_INTEGER;
  const shape = decimals === 0 ? INTEGER : DECIMAL;
  const fraction = text.indexOf('.');
  const fits = shape.test(text) && (fraction < 0 || text.length - fraction - 1 <= decimals);
  const n = fits ? Number(text) : NaN;
  if (fits && n >= rule.min && n <= max) return n;
  const kind = decimals === 0 ? 'an integer' : 'a number';
  const range = rule.max !== undefined || n > max ? ` and <= ${max}` : '';
  const digits = decimals === 0 ? 'plain digits' : Number.isFinite(decimals) ? `plain digits, at most ${decimals} decimals` : 'plain digits and a decimal point';
  return { error: `${what} must be ${kind} >= ${rule.min}${range} (${digits}), got '${text}'` };
}

/** readNumberText that throws the refusal. */
export function parseNumberText(text: string, what: string, rule: NumberRule): number {
  const n = readNumberText(text, what, rule);
  if (typeof n === 'number') return n;
  throw new Error(n.error);
}

/** The number `text` states by the same reading, or NaN: for a caller that words its own refusal (a list, a range). */
export function strictNumber(text: string, integer: boolean): number {
  const n = readNumberText(text, '', { min: 0, decimals: integer ? 0 : Infinity });
  return typeof n === 'number' ? n : NaN;
}
