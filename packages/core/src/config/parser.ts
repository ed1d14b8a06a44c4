/**
 * Schema-driven parser for the protobuf text format (what config.pbtxt files are written in).
 *
 * Accepts what protobuf's TextFormat accepts in Triton configs: `field: value`, `field { }`, `field: { }`,
 * `field < >`, lists `[a, b]` of scalars and of messages, repetition, maps as `{ key: .. value: .. }`
 * entries, enums by name or number, optional `,`/`;` separators. Refuses what protobuf refuses, with its
 * words: unknown fields, wrong value types, a non-repeated field set twice, two members of one oneof.
 *
 * Besides the config it returns where each field was written (dotted path -> line/column), so validation
 * issues found later can point at the text too.
 */
import { ConfigError } from './errors';
import { tokenize, type Token } from './lexer';
import { SCHEMAS, schemaOf, type FieldSpec, type ScalarType } from './schema';
import { parseScalarValue } from './scalars';
import { closest } from './suggest';
import type { ModelConfig } from './types';

export interface SourcePosition {
  line: number;
  column: number;
}

/** dotted path ('input[0].dims', 'parameters[k]') -> where it was written */
export type SourceLocations = Map<string, SourcePosition>;

export interface ParsedModelConfig {
  config: ModelConfig;
  locations: SourceLocations;
}

interface MessageTable {
  fullName: string;
  fields: Readonly<Record<string, FieldSpec>>;
}

type Obj = Record<string, unknown>;

export function parseModelConfig(text: string): ModelConfig {
  return parseModelConfigWithLocations(text).config;
}

export function parseModelConfigWithLocations(text: string): ParsedModelConfig {
  const parser = new TextFormatParser(tokenize(text));
  const config = parser.parseMessage(schemaOf('ModelConfig'), '', 'eof') as ModelConfig;
  return { config, locations: parser.locations };
}

const join = (path: string, name: string) => (path ? `${path}.${name}` : name);
const describe = (t: Token) => (t.kind === 'eof' ? 'end of input' : t.kind === 'string' ? `"${t.text}"` : t.text);

class TextFormatParser {
  readonly locations: SourceLocations = new Map();
  private pos = 0;

  constructor(private readonly tokens: Token[]) {}

  private peek(): Token {
    return this.tokens[this.pos]!;
  }
  private next(): Token {
    return this.tokens[this.pos++]!;
  }
  private isSymbol(text: string): boolean {
    const t = this.peek();
    return t.kind === 'symbol' && t.text === text;
  }
  private trySymbol(text: string): boolean {
    if (!this.isSymbol(text)) return false;
    this.pos++;
    return true;
  }
  private fail(reason: string, at: Token = this.peek()): never {
    throw new ConfigError(reason, at.line, at.column);
  }
  private expectSymbol(text: string): Token {
    if (!this.isSymbol(text)) this.fail(`Expected "${text}", found "${describe(this.peek())}".`);
    return this.next();
  }
  private mark(path: string, at: Token): void {
    if (!this.locations.has(path)) this.locations.set(path, { line: at.line, column: at.column });
  }

  /** Fields until `closing` ('}' / '>' / end of input). The opening delimiter is already consumed. */
  parseMessage(schema: MessageTable, path: string, closing: '}' | '>' | 'eof'): Obj {
    const obj: Obj = {};
    const oneofMembers = new Map<string, string>();
    for (;;) {
      const t = this.peek();
      if (closing === 'eof' ? t.kind === 'eof' : this.isSymbol(closing)) {
        this.next();
        return obj;
      }
      if (t.kind === 'eof') this.fail(`Expected "${closing}", found end of input.`);
      if (t.kind !== 'ident') this.fail(`Expected identifier, got: ${describe(t)}`);
      this.next();
      const name = t.text;
      const spec = Object.prototype.hasOwnProperty.call(schema.fields, name) ? schema.fields[name] : undefined;
      if (!spec) this.fail(`Message type "${schema.fullName}" has no field named "${name}".${unknownFieldHint(name, schema)}`, t);

      if (!spec.repeated && !spec.mapKey && name in obj) {
        this.fail(`Non-repeated field "${name}" is specified multiple times.`, t);
      }
      if (spec.oneof) {
        const other = oneofMembers.get(spec.oneof);
        if (other !== undefined && other !== name) {
          this.fail(`Field "${name}" is specified along with field "${other}", another member of oneof "${spec.oneof}".`, t);
        }
        oneofMembers.set(spec.oneof, name);
      }
      this.mark(join(path, name), t);
      this.parseField(obj, name, spec, schema, join(path, name), t);
      if (!this.trySymbol(',')) this.trySymbol(';');
    }
  }

  private parseField(obj: Obj, name: string, spec: FieldSpec, parent: MessageTable, path: string, nameTok: Token): void {
    const isMessageLike = spec.kind === 'message' || spec.mapKey !== undefined;
    if (isMessageLike) {
      this.trySymbol(':'); // optional before a message value
    } else if (!this.isSymbol(':')) {
      this.fail(`Expected ":", found "${describe(this.peek())}".`);
    } else {
      this.next();
    }

    const listed = this.isSymbol('[');
    if (listed && !spec.repeated && !spec.mapKey) {
      this.fail(`Field "${name}" is not repeated; a list "[...]" cannot be used for it.`);
    }

    const readOne = (elementPath: string): unknown =>
      isMessageLike ? this.parseMessageValue(spec, parent, name, elementPath) : this.parseScalar(spec, name);

    if (spec.mapKey !== undefined) {
      const map = (obj[name] as Record<string, unknown> | undefined) ?? {};
      obj[name] = map;
      const addEntry = (at: Token) => {
        const entry = readOne(path) as { key?: unknown; value?: unknown };
        const key = String(entry.key ?? (spec.mapKey === 'uint64' ? 0 : ''));
        // A later entry with the same key replaces the earlier one, as protobuf does for maps.
        map[key] = entry.value ?? (spec.kind === 'message' ? {} : defaultScalar(spec));
        this.mark(`${path}[${key}]`, at);
      };
      this.forEachValue(listed, addEntry);
      return;
    }

    if (spec.repeated) {
      const list = (obj[name] as unknown[] | undefined) ?? [];
      obj[name] = list;
      this.forEachValue(listed, (at) => {
        const elementPath = `${path}[${list.length}]`;
        this.mark(elementPath, listed ? at : nameTok);
        list.push(readOne(elementPath));
      });
      return;
    }
    obj[name] = readOne(path);
  }

  /** Calls `one` once, or once per element of a `[a, b, ...]` list. */
  private forEachValue(listed: boolean, one: (at: Token) => void): void {
    if (!listed) {
      one(this.peek());
      return;
    }
    this.expectSymbol('[');
    if (this.trySymbol(']')) return;
    for (;;) {
      one(this.peek());
      if (this.trySymbol(']')) return;
      if (!this.isSymbol(',')) this.fail(`Expected "," or "]", found "${describe(this.peek())}".`);
      this.next();
    }
  }

  private parseMessageValue(spec: FieldSpec, parent: MessageTable, name: string, path: string): Obj {
    let closing: '}' | '>';
    if (this.trySymbol('{')) closing = '}';
    else if (this.trySymbol('<')) closing = '>';
    else this.fail(`Expected "{" or "<" to start the value of message field "${name}", found "${describe(this.peek())}".`);
    return this.parseMessage(this.tableFor(spec, parent, name), path, closing);
  }

  /** The schema of a message field, or the synthetic `{ key, value }` entry message of a map field. */
  private tableFor(spec: FieldSpec, parent: MessageTable, name: string): MessageTable {
    if (spec.mapKey === undefined) {
      if (spec.kind !== 'message') throw new Error('unreachable: scalar field read as a message');
      return schemaOf(spec.message);
    }
    const { mapKey, repeated: _repeated, ...value } = spec;
    const entryName = name.replace(/(^|_)([a-z])/g, (_m, _u, ch: string) => ch.toUpperCase()) + 'Entry';
    return {
      fullName: `${parent.fullName}.${entryName}`,
      fields: { key: { kind: 'scalar', type: mapKey }, value: value as FieldSpec },
    };
  }

  private parseScalar(spec: FieldSpec, name: string): unknown {
    if (spec.kind === 'message') throw new Error('unreachable: message field read as a scalar');
    const first = this.peek();
    let negative = false;
    if (first.kind === 'symbol' && first.text === '-') {
      this.next();
      negative = true;
    }
    const t = this.next();
    if (spec.kind === 'scalar' && spec.type === 'string') {
      if (negative || t.kind !== 'string') this.fail(`Expected string, got: ${describe(negative ? first : t)}`, first);
      let value = t.text;
      // Adjacent string literals concatenate, as in C.
      while (this.peek().kind === 'string') value += this.next().text;
      return value;
    }
    const result = parseScalarValue(spec, name, t, negative);
    if (typeof result === 'object' && result !== null && 'error' in result) this.fail(result.error, first);
    return result;
  }
}

function defaultScalar(spec: FieldSpec): unknown {
  if (spec.kind === 'enum') return spec.values[0];
  if (spec.kind !== 'scalar') return {};
  const t: ScalarType = spec.type;
  return t === 'string' ? '' : t === 'bool' ? false : 0;
}

/** " Did you mean ...?" for a misspelling, or where the field does belong (a common beginner slip). */
function unknownFieldHint(name: string, schema: MessageTable): string {
  const guess = closest(name, Object.keys(schema.fields));
  if (guess) return ` Did you mean "${guess}"?`;
  const owners = Object.values(SCHEMAS)
    .filter((m) => Object.prototype.hasOwnProperty.call(m.fields, name))
    .map((m) => m.fullName);
  if (owners.length === 0) return '';
  return ` "${name}" is a field of ${owners.slice(0, 3).join(', ')}${owners.includes('inference.ModelConfig') ? ' (the top level of config.pbtxt)' : ''}.`;
}
