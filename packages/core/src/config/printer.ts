/**
 * printModelConfig: a ModelConfig as idiomatic config.pbtxt text (two-space indent, `input [ { ... } ]`
 * lists, `dims: [ 1, 2 ]`, maps as `key`/`value` entries), fields in proto declaration order. The text
 * parses back to an equal config; present-but-empty values (max_batch_size: 0, an empty list) are kept
 * so the round trip is exact.
 */
import { schemaOf, type FieldSpec, type MessageName } from './schema';
import type { ModelConfig } from './types';

type Obj = Record<string, unknown>;

export function printModelConfig(config: ModelConfig): string {
  const lines: string[] = [];
  printFields(config as Obj, 'ModelConfig', '', lines);
  return lines.join('\n') + '\n';
}

function printFields(obj: Obj, message: MessageName, indent: string, lines: string[]): void {
  const { fields } = schemaOf(message);
  for (const [name, spec] of Object.entries(fields)) {
    const value = obj[name];
    if (value === undefined) continue;
    if (spec.mapKey !== undefined) printMap(name, spec, value as Obj, indent, lines);
    else if (spec.repeated) printRepeated(name, spec, value as unknown[], indent, lines);
    else if (spec.kind === 'message') printMessageBlock(`${indent}${name}`, spec.message, value as Obj, indent, lines);
    else lines.push(`${indent}${name}: ${scalarText(spec, value)}`);
  }
}

function printMessageBlock(head: string, message: MessageName, value: Obj, indent: string, lines: string[]): void {
  const inner: string[] = [];
  printFields(value, message, indent + '  ', inner);
  if (inner.length === 0) {
    lines.push(`${head} { }`);
    return;
  }
  lines.push(`${head} {`, ...inner, `${indent}}`);
}

function printRepeated(name: string, spec: FieldSpec, values: unknown[], indent: string, lines: string[]): void {
  if (spec.kind !== 'message') {
    const items = values.map((v) => scalarText(spec, v));
    lines.push(`${indent}${name}: [ ${items.join(', ')}${items.length ? ' ' : ''}]`);
    return;
  }
  if (values.length === 0) {
    lines.push(`${indent}${name}: [ ]`);
    return;
  }
  lines.push(`${indent}${name} [`);
  values.forEach((v, i) => {
    const block: string[] = [];
    printMessageBlock(`${indent}  `, spec.message, v as Obj, indent + '  ', block);
    block[0] = block[0]!.replace(/^(\s*) /, '$1'); // "  {" rather than "   {"
    if (i < values.length - 1) block[block.length - 1] += ',';
    lines.push(...block);
  });
  lines.push(`${indent}]`);
}

function printMap(name: string, spec: FieldSpec, map: Obj, indent: string, lines: string[]): void {
  const entries = Object.entries(map);
  if (entries.length === 0) {
    lines.push(`${indent}${name}: [ ]`);
    return;
  }
  const keyText = (k: string) => (spec.mapKey === 'uint64' ? k : quote(k));
  for (const [key, value] of entries) {
    lines.push(`${indent}${name} {`, `${indent}  key: ${keyText(key)}`);
    if (spec.kind === 'message') printMessageBlock(`${indent}  value`, spec.message, value as Obj, indent + '  ', lines);
    else lines.push(`${indent}  value: ${scalarText(spec, value)}`);
    lines.push(`${indent}}`);
  }
}

function scalarText(spec: FieldSpec, value: unknown): string {
  if (spec.kind === 'enum') return String(value);
  if (spec.kind === 'scalar' && spec.type === 'string') return quote(String(value));
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') {
    if (Number.isNaN(value)) return 'nan';
    if (value === Infinity) return 'inf';
    if (value === -Infinity) return '-inf';
    if (Object.is(value, -0)) return '-0'; // String(-0) is "0"
    return String(value);
  }
  return String(value);
}

/** A double-quoted string literal; bytes that are not printable ASCII or UTF-8 text are escaped. */
function quote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const code = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\r') out += '\\r';
    else if (code < 0x20 || code === 0x7f) out += '\\' + code.toString(8).padStart(3, '0');
    else out += ch;
  }
  return out + '"';
}
