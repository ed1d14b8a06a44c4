/**
 * modelConfigToJson: the JSON Triton returns for GET /v2/models/{m}/config. Triton prints the protobuf
 * with preserved field names and every field without presence (scalars, enums, lists, maps) even when it
 * holds its default; unset sub-messages and unset oneof members are left out. 64-bit integers are plain
 * numbers here (Triton converts most of them back from protobuf's strings too).
 */
import { schemaOf, type FieldSpec, type MessageName } from './schema';
import type { ModelConfig } from './types';

type Obj = Record<string, unknown>;
export type JsonValue = null | boolean | number | string | JsonValue[] | { [k: string]: JsonValue };

export function modelConfigToJson(config: ModelConfig): { [k: string]: JsonValue } {
  return messageToJson(config as Obj, 'ModelConfig');
}

function messageToJson(obj: Obj, message: MessageName): { [k: string]: JsonValue } {
  const out: { [k: string]: JsonValue } = {};
  for (const [name, spec] of Object.entries(schemaOf(message).fields)) {
    const value = obj[name];
    if (spec.mapKey !== undefined) {
      const map: { [k: string]: JsonValue } = {};
      for (const [k, v] of Object.entries((value as Obj | undefined) ?? {})) map[k] = valueToJson(spec, v);
      out[name] = map;
    } else if (spec.repeated) {
      out[name] = ((value as unknown[] | undefined) ?? []).map((v) => valueToJson(spec, v));
    } else if (spec.kind === 'message' || spec.oneof) {
      if (value !== undefined) out[name] = valueToJson(spec, value);
    } else {
      out[name] = valueToJson(spec, value ?? defaultOf(spec));
    }
  }
  return out;
}

function valueToJson(spec: FieldSpec, value: unknown): JsonValue {
  if (spec.kind === 'message') return messageToJson((value ?? {}) as Obj, spec.message);
  if (typeof value === 'number' && !Number.isFinite(value)) {
    // protobuf's JSON spelling of non-finite floats
    return Number.isNaN(value) ? 'NaN' : value > 0 ? 'Infinity' : '-Infinity';
  }
  return value as JsonValue;
}

function defaultOf(spec: FieldSpec): JsonValue {
  if (spec.kind === 'enum') return spec.values[0]!;
  if (spec.kind !== 'scalar') return {};
  return spec.type === 'string' ? '' : spec.type === 'bool' ? false : 0;
}
