/**
 * Tokenizer for the protobuf text format as Triton users write it.
 * Tokens keep their 1-based line and column so every parser error can point at the text.
 */
import { ConfigError } from './errors';

export type TokenKind = 'ident' | 'number' | 'string' | 'symbol' | 'eof';

export interface Token {
  kind: TokenKind;
  /** identifier text, the number as written, the decoded string, or the symbol character */
  text: string;
  line: number;
  column: number;
}

const SYMBOLS = new Set(['{', '}', '<', '>', '[', ']', ':', ',', ';', '-']);
// Character classes by code (faster than a regex per character; configs are re-read on every poll).
const isIdentStart = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
const isDigit = (c: number) => c >= 48 && c <= 57;
const isIdentPart = (c: number) => isIdentStart(c) || isDigit(c);
const encoder = new TextEncoder();
const decoder = new TextDecoder();
// Decimal/float with optional exponent and f suffix, or hex, or octal: what protobuf's tokenizer takes.
const NUMBER = /(?:0[xX][0-9A-Fa-f]+|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[fF]?)/y;

export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  // A UTF-8 byte order mark (some Windows editors write one) is not part of the text.
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let line = 1;
  let lineStart = i;
  const col = (at: number) => at - lineStart + 1;

  while (i < text.length) {
    const c = text[i]!;
    if (c === '\n') {
      i++;
      line++;
      lineStart = i;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r' || c === '\f' || c === '\v') {
      i++;
      continue;
    }
    if (c === '#') {
      while (i < text.length && text[i] !== '\n') i++;
      continue;
    }
    const start = i;
    const code = text.charCodeAt(i);
    if (isIdentStart(code)) {
      while (i < text.length && isIdentPart(text.charCodeAt(i))) i++;
      tokens.push({ kind: 'ident', text: text.slice(start, i), line, column: col(start) });
      continue;
    }
    if (isDigit(code) || (c === '.' && isDigit(text.charCodeAt(i + 1)))) {
      NUMBER.lastIndex = i;
      const m = NUMBER.exec(text);
      const lexeme = m ? m[0] : c;
      i += lexeme.length;
      if (i < text.length && isIdentPart(text.charCodeAt(i))) {
        throw new ConfigError(`Invalid number "${lexeme}${text[i]}"`, line, col(start));
      }
      tokens.push({ kind: 'number', text: lexeme, line, column: col(start) });
      continue;
    }
    if (c === '"' || c === "'") {
      const { value, end } = readString(text, i, line, lineStart);
      i = end;
      tokens.push({ kind: 'string', text: value, line, column: col(start) });
      continue;
    }
    if (SYMBOLS.has(c)) {
      i++;
      tokens.push({ kind: 'symbol', text: c, line, column: col(start) });
      continue;
    }
    throw new ConfigError(`Unexpected character "${c}"`, line, col(start));
  }
  tokens.push({ kind: 'eof', text: '', line, column: col(i) });
  return tokens;
}

const SIMPLE_ESCAPES: Record<string, string> = {
  n: '\n', t: '\t', r: '\r', a: '\x07', b: '\b', f: '\f', v: '\v', '\\': '\\', "'": "'", '"': '"', '?': '?',
};

/** Reads one quoted string starting at `start` (the quote). Escapes decode to bytes, then to UTF-8 text. */
function readString(text: string, start: number, line: number, lineStart: number): { value: string; end: number } {
  const quote = text[start]!;
  // Fast path: no escape before the closing quote on this line (almost every string in a config).
  const q = text.charCodeAt(start);
  for (let j = start + 1; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (c === q) return { value: text.slice(start + 1, j), end: j + 1 };
    if (c === 92 /* \\ */ || c === 10 /* \n */) break;
  }
  const bytes: number[] = [];
  let i = start + 1;
  for (;;) {
    const c = text[i];
    if (c === undefined || c === '\n') {
      throw new ConfigError('String literals cannot cross line boundaries.', line, start - lineStart + 1);
    }
    if (c === quote) {
      i++;
      break;
    }
    if (c !== '\\') {
      const cp = text.codePointAt(i)!;
      const ch = String.fromCodePoint(cp);
      bytes.push(...encoder.encode(ch));
      i += ch.length;
      continue;
    }
    const e = text[i + 1] ?? '';
    if (e in SIMPLE_ESCAPES) {
      bytes.push(SIMPLE_ESCAPES[e]!.charCodeAt(0));
      i += 2;
    } else if (/[0-7]/.test(e)) {
      const m = /^[0-7]{1,3}/.exec(text.slice(i + 1, i + 4))![0];
      bytes.push(parseInt(m, 8) & 0xff);
      i += 1 + m.length;
    } else if (e === 'x' || e === 'X') {
      const m = /^[0-9A-Fa-f]{1,2}/.exec(text.slice(i + 2, i + 4));
      if (!m) throw new ConfigError('Expected hex digits for escape sequence.', line, i - lineStart + 1);
      bytes.push(parseInt(m[0], 16));
      i += 2 + m[0].length;
    } else if (e === 'u' || e === 'U') {
      const len = e === 'u' ? 4 : 8;
      const hex = text.slice(i + 2, i + 2 + len);
      if (!new RegExp(`^[0-9A-Fa-f]{${len}}$`).test(hex)) {
        throw new ConfigError(`Expected ${len} hex digits for \\${e} escape sequence.`, line, i - lineStart + 1);
      }
      bytes.push(...encoder.encode(String.fromCodePoint(parseInt(hex, 16))));
      i += 2 + len;
    } else {
      throw new ConfigError(`Invalid escape sequence in string literal: "\\${e}"`, line, i - lineStart + 1);
    }
  }
  return { value: decoder.decode(new Uint8Array(bytes)), end: i };
}
