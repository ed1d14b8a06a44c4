/**
 * modelConfigFromJson: a ModelConfig from its JSON form, read the way Triton reads a repository load's
 * `config` parameter (JsonToModelConfig: protobuf's JSON parser with `ignore_unknown_fields = false` and
 * case-insensitive enum names). Every nesting level is checked against the schema table, so an unknown
 * field anywhere (dynamic_batching, instance_group[0], a map's message values) is refused instead of
 * silently dropped, and a value of the wrong JSON type is refused instead of coerced.
 *
 * Protobuf's JSON mapping decides what is accepted: field names as in the proto or in lowerCamelCase;
 * integers as JSON numbers without a fraction or as decimal strings (int64 travels as a string in
 * protobuf JSON); floats as numbers, numeric strings, "NaN", "Infinity", "-Infinity"; booleans only as
 * true/false; enums by name (any case) or number; null = the field is not set. Messages follow protobuf's
 * wording: `(location) name: Cannot find field.` and `(location): invalid value V for type T`.
 */
import { schemaOf, type FieldSpec, type MessageName } from './schema';
import type { ModelConfig } from './types';

export class ConfigJsonError extends Error {
  override name = 'ConfigJsonError';
}

type Obj = Record<string, unknown>;

const INT_RANGE: Record<string, [number, number]> = {
  int32: [-(2 ** 31), 2 ** 31 - 1],
  uint32: [0, 2 ** 32 - 1],
  int64: [-Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  uint64: [0, Number.MAX_SAFE_INTEGER],
};

export function modelConfigFromJson(doc: unknown): ModelConfig {
  return readMessage(doc, 'ModelConfig', '') as unknown as ModelConfig;
}

const camel = (name: string) => name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/** proto name and lowerCamelCase json_name -> proto name, per message (built once). */
const namesCache = new Map<MessageName, Map<string, string>>();
function fieldNames(message: MessageName): Map<string, string> {
  let names = namesCache.get(message);
  if (!names) {
    names = new Map();
    for (const name of Object.keys(schemaOf(message).fields)) {
      names.set(name, name);
      names.set(camel(name), name);
    }
    namesCache.set(message, names);
  }
  return names;
}

const at = (loc: string) => (loc ? `(${loc})` : '');
const child = (loc: string, name: string) => (loc ? `${loc}.${name}` : name);
function shown(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return 'a JSON array';
  if (value !== null && typeof value === 'object') return 'a JSON object';
  return String(value);
}
function invalidValue(loc: string, type: string, value: unknown): ConfigJsonError {
  return new ConfigJsonError(`${at(loc)}: invalid value ${shown(value)} for type ${type}`);
}

function readMessage(value: unknown, message: MessageName, loc: string): Obj {
  const schema = schemaOf(message);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw invalidValue(loc, schema.fullName, value);
  const names = fieldNames(message);
  const out: Obj = {};
  const oneofs = new Map<string, string>();
  for (const [key, raw] of Object.entries(value as Obj)) {
    const name = names.get(key);
    if (name === undefined) throw new ConfigJsonError(`${at(loc)}${loc ? ' ' : ''}${key}: Cannot find field.`);
    if (raw === null) continue; // protobuf JSON: null means "not set"
    if (out[name] !== undefined) throw new ConfigJsonError(`${at(loc)}${loc ? ' ' : ''}${key}: field is given twice (as '${name}' and '${camel(name)}')`);
    const spec = schema.fields[name]!;
    const where = child(loc, name);
    if (spec.oneof !== undefined) {
      const other = oneofs.get(spec.oneof);
      if (other !== undefined) throw new ConfigJsonError(`${at(where)}: oneof '${spec.oneof}' is already set by '${other}'`);
      oneofs.set(spec.oneof, name);
    }
    out[name] = readField(spec, raw, where);
  }
  return out;
}

function readField(spec: FieldSpec, raw: unknown, loc: string): unknown {
  if (spec.mapKey !== undefined) {
    if (typeof raw !== 'object' || Array.isArray(raw)) throw invalidValue(loc, 'map (a JSON object)', raw);
    const map: Obj = {};
    for (const [k, v] of Object.entries(raw as Obj)) {
      if (spec.mapKey === 'uint64' && !/^(0|[1-9][0-9]*)$/.test(k)) throw invalidValue(`${loc}[${JSON.stringify(k)}]`, 'TYPE_UINT64 map key', k);
      map[k] = readValue(spec, v, `${loc}[${JSON.stringify(k)}]`);
    }
    return map;
  }
  if (spec.repeated) {
    if (!Array.isArray(raw)) throw invalidValue(loc, `repeated field (a JSON array)`, raw);
    return raw.map((v, i) => readValue(spec, v, `${loc}[${i}]`));
  }
  return readValue(spec, raw, loc);
}

function readValue(spec: FieldSpec, raw: unknown, loc: string): unknown {
  if (spec.kind === 'message') return readMessage(raw, spec.message, loc);
  if (spec.kind === 'enum') return readEnum(spec.values, spec.name, raw, loc);
  const type = `TYPE_${spec.type.toUpperCase()}`;
  switch (spec.type) {
    case 'string':
      if (typeof raw !== 'string') throw invalidValue(loc, type, raw);
      return raw;
    case 'bool':
      if (typeof raw !== 'boolean') throw invalidValue(loc, type, raw);
      return raw;
    case 'float':
    case 'double': {
      if (typeof raw === 'number') return raw;
      if (typeof raw === 'string') {
        if (raw === 'NaN') return NaN;
        if (raw === 'Infinity') return Infinity;
        if (raw === '-Infinity') return -Infinity;
        if (/^-?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(raw)) return Number(raw);
      }
      throw invalidValue(loc, type, raw);
    }
    default: {
      // integers: a number without a fraction, or a decimal string; within the type's range
      const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^-?(0|[1-9][0-9]*)$/.test(raw) ? Number(raw) : NaN;
      const [min, max] = INT_RANGE[spec.type]!;
      if (!Number.isInteger(n)) throw invalidValue(loc, type, raw);
      if (n < min || n > max) {
        const why = spec.type.endsWith('64') ? 'beyond 2^53-1, which InferScope cannot hold exactly' : 'out of range';
        throw new ConfigJsonError(`${at(loc)}: invalid value ${shown(raw)} for type ${type} (${why})`);
      }
      return n;
    }
  }
}

function readEnum(values: readonly string[], enumName: string, raw: unknown, loc: string): string {
  if (typeof raw === 'number' && Number.isInteger(raw) && raw >= 0 && raw < values.length) return values[raw]!;
  if (typeof raw === 'string') {
    const found = values.find((v) => v.toLowerCase() === raw.toLowerCase());
    if (found !== undefined) return found;
  }
  throw new ConfigJsonError(`${at(loc)}: invalid value ${shown(raw)} for type ${enumName} (one of ${values.join(', ')})`);
}
