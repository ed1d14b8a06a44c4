/**
 * Reading one scalar token (number, identifier) as the value of a bool, integer, float or enum field,
 * with protobuf's rules: every boolean spelling protobuf accepts, hex/octal integers, range checks,
 * inf/nan for floats, enums by name or number.
 */
import type { Token } from './lexer';
import type { FieldSpec } from './schema';
import { closest } from './suggest';

export type ScalarResult = boolean | number | string | { error: string };

const TRUE_WORDS = new Set(['true', 'True', 't', '1']);
const FALSE_WORDS = new Set(['false', 'False', 'f', '0']);

const INT_RANGE: Record<string, [bigint, bigint]> = {
  int32: [-(2n ** 31n), 2n ** 31n - 1n],
  uint32: [0n, 2n ** 32n - 1n],
  int64: [-(2n ** 63n), 2n ** 63n - 1n],
  uint64: [0n, 2n ** 64n - 1n],
};
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

export function parseScalarValue(spec: FieldSpec, name: string, t: Token, negative: boolean): ScalarResult {
  const shown = (negative ? '-' : '') + (t.kind === 'string' ? `"${t.text}"` : t.text || 'end of input');
  if (spec.kind === 'enum') return parseEnum(spec.values, spec.name, name, t, negative, shown);
  if (spec.kind !== 'scalar') return { error: `Expected a value for field "${name}"` };

  switch (spec.type) {
    case 'bool': {
      if (!negative && (t.kind === 'ident' || t.kind === 'number')) {
        if (TRUE_WORDS.has(t.text)) return true;
        if (FALSE_WORDS.has(t.text)) return false;
      }
      return { error: `Invalid value for boolean field "${name}". Value: "${shown}".` };
    }
    case 'int32':
    case 'uint32':
    case 'int64':
    case 'uint64': {
      if (t.kind !== 'number') return { error: `Expected integer, got: ${shown}` };
      if (/^[1-9][0-9]{0,8}$|^0$/.test(t.text)) {
        // Fast path: short decimals fit every integer type's range except negatives for unsigned types.
        const n = Number(t.text);
        if (!negative) return n;
        if (spec.type === 'int32' || spec.type === 'int64') return n === 0 ? 0 : -n;
      }
      const magnitude = integerLexeme(t.text);
      if (magnitude === undefined) return { error: `Expected integer, got: ${shown}` };
      const value = negative ? -magnitude : magnitude;
      const [min, max] = INT_RANGE[spec.type]!;
      if (value < min || value > max) return { error: `Integer out of range (${shown}) for ${spec.type} field "${name}"` };
      if (value > MAX_SAFE || value < -MAX_SAFE) {
        return { error: `Integer ${shown} for field "${name}" is beyond 2^53-1, which InferScope cannot hold exactly` };
      }
      return Number(value);
    }
    case 'float':
    case 'double': {
      if (t.kind === 'ident') {
        const word = t.text.toLowerCase();
        if (word === 'inf' || word === 'infinity') return negative ? -Infinity : Infinity;
        if (word === 'nan') return NaN;
        return { error: `Expected double, got: ${shown}` };
      }
      if (t.kind !== 'number') return { error: `Expected double, got: ${shown}` };
      const magnitude = integerLexeme(t.text);
      const value = magnitude !== undefined ? Number(magnitude) : Number(t.text.replace(/[fF]$/, ''));
      if (Number.isNaN(value)) return { error: `Expected double, got: ${shown}` };
      return negative ? -value : value;
    }
    default:
      return { error: `Expected string, got: ${shown}` };
  }
}

/** Decimal, hex (0x..) or octal (0..) integer text -> its value; undefined when it is not an integer. */
function integerLexeme(text: string): bigint | undefined {
  if (/^0[xX][0-9A-Fa-f]+$/.test(text)) return BigInt(text);
  if (/^0[0-7]+$/.test(text)) return BigInt('0o' + text.slice(1));
  if (/^(0|[1-9][0-9]*)$/.test(text)) return BigInt(text);
  return undefined;
}

function parseEnum(
  values: readonly string[], enumName: string, field: string, t: Token, negative: boolean, shown: string,
): ScalarResult {
  if (t.kind === 'ident' && !negative) {
    if (values.includes(t.text)) return t.text;
  } else if (t.kind === 'number') {
    const n = integerLexeme(t.text);
    if (n !== undefined && !negative && n < BigInt(values.length)) return values[Number(n)]!;
  }
  const known = values.join(', ');
  // Beginners write FP32 for TYPE_FP32, GPU for KIND_GPU ...: suggest the full name when one ends so.
  const suffixed = t.kind === 'ident' ? values.find((v) => v.endsWith(`_${t.text}`)) : undefined;
  const guess = suffixed ?? (t.kind === 'ident' ? closest(t.text, values) : undefined);
  return {
    error: `Unknown enumeration value of "${shown}" for field "${field}".` +
      (guess ? ` Did you mean ${guess}?` : '') + ` (enum ${enumName}: one of ${known})`,
  };
}
