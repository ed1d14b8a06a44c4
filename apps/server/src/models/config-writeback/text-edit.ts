/**
 * Edits config.pbtxt text in place for the fields live reconfiguration changes (max_batch_size,
 * dynamic_batching scalars and preferred sizes, instance_group[i].count), so saving keeps the user's
 * comments, order and layout, and updates the comments a new value would make false (comment-update.ts).
 * Anything it cannot place returns undefined and the caller prints the whole config instead. The caller verifies the result parses back to the expected config either way.
 */
import { parseModelConfigWithLocations, type SourceLocations, type SourcePosition } from '@inferscope/core/config';
import { tokenize, type Token } from '@inferscope/core/config';
import { parseLivePath, readLivePath } from '@inferscope/core/live-config';
import { updateComments } from './comment-update';

export interface FieldEdit {
  /** 'max_batch_size' | 'dynamic_batching.<field>' | 'instance_group[<i>].count' */
  path: string;
  value: unknown;
}

function format(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (Array.isArray(value) && value.every((v) => typeof v === 'number' && Number.isFinite(v))) return `[ ${value.join(', ')} ]`;
  return undefined;
}

function offsetOf(text: string, at: SourcePosition): number {
  let line = 1;
  let i = 0;
  while (line < at.line && i < text.length) {
    const nl = text.indexOf('\n', i);
    if (nl < 0) return text.length;
    i = nl + 1;
    line++;
  }
  return i + at.column - 1;
}

function tokenIndexAt(tokens: Token[], at: SourcePosition): number {
  return tokens.findIndex((t) => t.line === at.line && t.column === at.column);
}

/** Replaces the value of a field written in the text. */
function replaceValue(text: string, fieldAt: SourcePosition, literal: string): string | undefined {
  const tokens = tokenize(text);
  let i = tokenIndexAt(tokens, fieldAt);
  if (i < 0) return undefined;
  i++;
  if (tokens[i]?.text === ':') i++;
  const first = tokens[i];
  if (!first || first.kind === 'eof' || first.kind === 'string') return undefined;
  let last = i;
  if (first.text === '[') {
    while (tokens[last] && tokens[last].text !== ']') last++;
    if (!tokens[last]) return undefined;
  } else if (first.text === '-') {
    last = i + 1;
  } else if (first.text === '{' || first.text === '<') {
    return undefined;
  }
  const start = offsetOf(text, first);
  const end = offsetOf(text, tokens[last]) + tokens[last].text.length;
  return text.slice(0, start) + literal + text.slice(end);
}

/** Inserts `name: literal` as the first field of the message written at `parentAt`. */
function insertInto(text: string, parentAt: SourcePosition | undefined, name: string, literal: string): string | undefined {
  const tokens = tokenize(text);
  let i = parentAt ? tokenIndexAt(tokens, parentAt) : -1;
  if (i < 0) return undefined;
  // The parent may point at its field name (dynamic_batching) or straight at its '{' (a list element).
  while (tokens[i] && tokens[i].text !== '{') {
    if (tokens[i].kind === 'eof' || tokens[i].text === '}') return undefined;
    i++;
  }
  if (!tokens[i]) return undefined;
  const brace = tokens[i];
  const at = offsetOf(text, brace) + 1;
  const lineStart = text.lastIndexOf('\n', at - 1) + 1;
  const indent = /^\s*/.exec(text.slice(lineStart))![0];
  return `${text.slice(0, at)}\n${indent}  ${name}: ${literal}${text.slice(at)}`;
}

/** The location keys of the messages enclosing a field path: 'a.b[0].c' -> 'a.b[0]', 'a.b', 'a'. */
function enclosing(path: string): string[] {
  const out: string[] = [];
  for (let p = path; ; ) {
    const cut = Math.max(p.lastIndexOf('.'), p.lastIndexOf('['));
    if (cut <= 0) return out;
    p = p.slice(0, cut);
    out.push(p);
  }
}

/** The locations of `text`, with the comments a new value at `edit.path` would make false updated first. */
function locate(text: string, edit: FieldEdit, notes: string[]): { text: string; locations: SourceLocations } | undefined {
  try {
    const { config, locations } = parseModelConfigWithLocations(text);
    const path = parseLivePath(edit.path);
    const at = locations.get(edit.path);
    if (!at || !path) return { text, locations };
    const enclosingLines = enclosing(edit.path).flatMap((k) => locations.get(k)?.line ?? []);
    const field = edit.path.replace(/^.*[.\]]/, '');
    const updated = updateComments(text, { fieldLine: at.line, enclosingLines, field, old: readLivePath(config, path), value: edit.value }, notes);
    // comment edits move no token, but a dropped comment line moves every line after it
    return updated === text ? { text, locations } : { text: updated, locations: parseModelConfigWithLocations(updated).locations };
  } catch {
    return undefined;
  }
}

/**
 * The text with every edit applied, or undefined when one cannot be placed. `notes` receives a line per
 * comment updated or dropped because the new value made it false (comment-update.ts).
 */
export function editConfigText(text: string, edits: readonly FieldEdit[], notes: string[] = []): string | undefined {
  let out = text;
  for (const edit of edits) {
    const parameter = parseLivePath(edit.path);
    if (parameter?.kind === 'parameter') {
      const next = editParameter(out, parameter.key, edit.value);
      if (next === undefined) return undefined;
      out = next;
      continue;
    }
    const literal = format(edit.value);
    if (literal === undefined) return undefined;
    const located = locate(out, edit, notes);
    if (!located) return undefined;
    out = located.text;
    const locations = located.locations;
    // The parser's location keys are the same field paths as the live paths' wire form.
    const at = locations.get(edit.path);
    const path = parseLivePath(edit.path);
    let next: string | undefined;
    if (at) next = replaceValue(out, at, literal);
    else if (path?.kind === 'max_batch_size') next = `${out.replace(/\s*$/, '')}\nmax_batch_size: ${literal}\n`;
    else if (path?.kind === 'dynamic_batching_field') {
      next = locations.has('dynamic_batching')
        ? insertInto(out, locations.get('dynamic_batching'), path.field, literal)
        : `${out.replace(/\s*$/, '')}\n\ndynamic_batching {\n  ${path.field}: ${literal}\n}\n`;
    } else if (path?.kind === 'instance_count') {
      next = insertInto(out, locations.get(`instance_group[${path.group}]`), 'count', literal);
    } else if (path?.kind === 'response_cache_enable') {
      next = locations.has('response_cache')
        ? insertInto(out, locations.get('response_cache'), 'enable', literal)
        : `${out.replace(/\s*$/, '')}\n\nresponse_cache {\n  enable: ${literal}\n}\n`;
    }
    if (next === undefined) return undefined;
    out = next;
  }
  return out;
}

/**
 * A `parameters` entry's string_value (an iterative model's live knob): replaced where the file writes
 * it, else a new entry after the last line. Triton's parameters are strings, written quoted.
 */
function editParameter(text: string, key: string, value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const literal = JSON.stringify(value);
  let at: SourcePosition | undefined;
  try {
    at = parseModelConfigWithLocations(text).locations.get(`parameters[${key}]`);
  } catch {
    return undefined;
  }
  if (!at) return `${text.replace(/\s*$/, '')}\nparameters { key: ${JSON.stringify(key)} value: { string_value: ${literal} } }\n`;
  const tokens = tokenize(text);
  let i = tokenIndexAt(tokens, at);
  if (i < 0) return undefined;
  // from the entry's start to its string_value's string (the first one after the key's own)
  while (tokens[i] && tokens[i]!.text !== 'string_value') {
    if (tokens[i]!.kind === 'eof') return undefined;
    i++;
  }
  i++;
  if (tokens[i]?.text === ':') i++;
  const str = tokens[i];
  if (!str || str.kind !== 'string') return undefined;
  // the token holds the decoded string: its end in the text is the closing quote
  const start = offsetOf(text, str);
  const quote = text[start];
  let end = start + 1;
  while (end < text.length && text[end] !== quote) end += text[end] === '\\' ? 2 : 1;
  if (end >= text.length) return undefined;
  return text.slice(0, start) + literal + text.slice(end + 1);
}
