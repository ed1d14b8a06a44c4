/**
 * A TypeBox schema's refusals in words: one line per problem, each naming its field, so a bad file or
 * message is fixed in one go. Shared by every contract declared as a schema (the simulator's calibration
 * and cost files, load scenarios). A custom kind (TypeRegistry) words its own refusals: registerKindWording.
 */
import { Kind, type TSchema } from '@sinclair/typebox';
import { Value, ValueErrorType, type ValueError } from '@sinclair/typebox/value';

const kindWording = new Map<string, (value: unknown, at: string) => string[]>();

/** How a custom kind says what is wrong with a value (the schema's `[Kind]`). */
export function registerKindWording(kind: string, word: (value: unknown, at: string) => string[]): void {
  kindWording.set(kind, word);
}

export interface ProblemOptions {
  /** array indices as `phases[2].rate` instead of `phases.2.rate` (for schemas whose objects have no numeric keys) */
  brackets?: boolean;
}

/** '/host/cpus' -> 'host.cpus'; with brackets '/phases/2/rate' -> 'phases[2].rate' */
function fieldOf(path: string, what: string, brackets: boolean): string {
  let out = what;
  for (const seg of path.split('/').filter(Boolean)) out += brackets && /^\d+$/.test(seg) ? `[${seg}]` : out === '' ? seg : `.${seg}`;
  return out;
}

type Bounds = TSchema & {
  minimum?: number; maximum?: number; exclusiveMinimum?: number; exclusiveMaximum?: number; minLength?: number; minItems?: number;
  minProperties?: number; const?: unknown; patternProperties?: object; description?: string; anyOf?: { const?: unknown }[]; type?: string;
};

function describe(e: ValueError, at: string, kind: string | undefined): string[] {
  const s = e.schema as Bounds;
  const integer = s.type === 'integer';
  switch (e.type) {
    case ValueErrorType.Kind: return kind && kindWording.has(kind) ? kindWording.get(kind)!(e.value, at) : [`${at}: ${e.message}`];
    case ValueErrorType.ObjectRequiredProperty: return [`${at}: is required`];
    // a record's key outside its pattern, or a closed object's unknown field
    case ValueErrorType.ObjectAdditionalProperties: return [s.patternProperties ? `${at}: keys must be ${s.description ?? 'valid'}` : `${at}: unknown field`];
    case ValueErrorType.Literal: return [`${at}: must be ${JSON.stringify(s.const)}`];
    case ValueErrorType.NumberMinimum: return [`${at}: must be a number >= ${s.minimum}`];
    case ValueErrorType.IntegerMinimum: return [`${at}: must be an integer >= ${s.minimum}`];
    case ValueErrorType.NumberMaximum:
    case ValueErrorType.IntegerMaximum: return [`${at}: must be ${integer ? 'an integer' : 'a number'} <= ${s.maximum}`];
    case ValueErrorType.NumberExclusiveMinimum:
    case ValueErrorType.IntegerExclusiveMinimum: return [`${at}: must be a number > ${s.exclusiveMinimum}`];
    case ValueErrorType.NumberExclusiveMaximum: return [`${at}: must be a number < ${s.exclusiveMaximum}`];
    case ValueErrorType.Number: return [`${at}: must be a number${s.minimum !== undefined ? ` >= ${s.minimum}` : ''}`];
    case ValueErrorType.Integer: return [`${at}: must be an integer${s.minimum !== undefined ? ` >= ${s.minimum}` : ''}`];
    case ValueErrorType.String: return [`${at}: must be a string`];
    case ValueErrorType.StringMinLength: return [`${at}: must be a non-empty string`];
    case ValueErrorType.Array: return [`${at}: must be an array`];
    case ValueErrorType.ArrayMinItems: return [`${at}: must have at least ${s.minItems} ${s.minItems === 1 ? 'entry' : 'entries'}`];
    case ValueErrorType.ObjectMinProperties: return [`${at}: must have at least ${s.minProperties} entry`];
    case ValueErrorType.Object: return [`${at}: must be an object`];
    // a union of literals is an enumeration
    case ValueErrorType.Union:
      if (s.anyOf?.every((o) => o.const !== undefined)) return [`${at}: must be one of ${s.anyOf.map((o) => String(o.const)).join(', ')}`];
      return [`${at}: ${e.message}`];
    default: return [`${at}: ${e.message}`];
  }
}

/** What is wrong with `value` against `schema`, one line per problem, each naming its field under `what`. */
export function schemaProblems(schema: TSchema, value: unknown, what: string, o: ProblemOptions = {}): string[] {
  // a Set keeps the first wording of each problem in order, and stays linear on a value with thousands of
  // them (a long replay, a line of a hostile trace file)
  const problems = new Set<string>();
  const missing = new Set<string>();
  for (const e of Value.Errors(schema, value)) {
    // a missing field is said once ("is required"), not again as a value of the wrong type
    if (missing.has(e.path)) continue;
    if (e.type === ValueErrorType.ObjectRequiredProperty) missing.add(e.path);
    const kind = e.schema[Kind];
    for (const p of describe(e, fieldOf(e.path, what, o.brackets ?? false), kind)) problems.add(p);
  }
  return [...problems];
}
