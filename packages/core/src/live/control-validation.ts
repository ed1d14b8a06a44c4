/**
 * Validation of `control` messages, as strict as HTTP input: a nesting and size limit, a known action,
 * then that action's schema (control-schema.ts: closed objects, typed and bounded fields). A message that
 * fails is answered with one clear sentence and changes nothing; everything is checked here before any
 * handler runs. The one validator of control messages: the server's gateway and teaching mode's
 * simulated server both call it, so both refuse the same messages with the same words. The schemas are
 * compiled on first use; this file only turns TypeBox's first error into words.
 */
import { TypeCompiler, ValueErrorType, type TypeCheck, type ValueError } from '@sinclair/typebox/compiler';
import type { TSchema } from '@sinclair/typebox';
import { MAX_CONTROL_BYTES, type ControlAck } from './protocol';
import { asInferError } from '../errors/infer-error';
import { BATCHING_PATCH_FIELDS } from '../live-config/fields';
import { ITERATIVE_KNOB_FIELDS } from '../live-config/iterative-knobs';
import { depthExceeds, NESTING_MESSAGE, utf8Length } from '../util/json-depth';
import { CONTROL_ACTIONS, CONTROL_SCHEMAS, TraceNameSchema, type ControlAction, type ControlMessage } from './control-schema';

export type Validated<T> = { ok: true; value: T } | { ok: false; error: string };

type Compiled = { [A in ControlAction]: TypeCheck<(typeof CONTROL_SCHEMAS)[A]> };
let compiledSchemas: Compiled | undefined;
let compiledTraceName: TypeCheck<typeof TraceNameSchema> | undefined;
// compiled on first use: a dashboard that never sends a control message pays nothing at start
const compiled = (): Compiled => (compiledSchemas ??= Object.fromEntries(
  CONTROL_ACTIONS.map((action) => [action, TypeCompiler.Compile(CONTROL_SCHEMAS[action])]),
) as Compiled);
const traceName = () => (compiledTraceName ??= TypeCompiler.Compile(TraceNameSchema));

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** '/preferred_batch_size/1' -> 'preferred_batch_size[1]', '/default_queue_policy/max_queue_size' -> 'default_queue_policy.max_queue_size' */
function fieldOf(path: string): string {
  return path.split('/').slice(1).reduce((out, part) => (/^\d+$/.test(part) ? `${out}[${part}]` : out ? `${out}.${part}` : part), '');
}

function shown(v: unknown): string {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}

type Bounded = TSchema & { minimum?: number; maximum?: number; exclusiveMinimum?: number; maxItems?: number; minLength?: number; maxLength?: number; errorMessage?: string };

function describe(e: ValueError, where: string, parent: Bounded | undefined): string {
  const field = fieldOf(e.path);
  const s = e.schema as Bounded;
  if (e.type === ValueErrorType.ObjectAdditionalProperties) {
    const key = field.split(/[.[]/).pop();
    const container = field.includes('.') ? field.slice(0, field.lastIndexOf('.')) : where;
    if (parent?.errorMessage && field.includes('.')) return `'${container}' ${parent.errorMessage}: '${key}' is not one`;
    const allowed = parent && 'properties' in parent ? ` (allowed: ${Object.keys(parent.properties as object).join(', ')})` : '';
    return `unknown field '${key}' in ${container}${allowed}`;
  }
  if (e.type === ValueErrorType.ObjectRequiredProperty) return `'${field}' is required`;
  if (s.errorMessage) return `'${field}' ${s.errorMessage}, got ${shown(e.value)}`;
  switch (e.type) {
    case ValueErrorType.Integer: return `'${field}' must be an integer, got ${shown(e.value)}`;
    case ValueErrorType.Number: return `'${field}' must be a number, got ${shown(e.value)}`;
    case ValueErrorType.Boolean: return `'${field}' must be true or false, got ${shown(e.value)}`;
    case ValueErrorType.String: return `'${field}' must be a string, got ${shown(e.value)}`;
    case ValueErrorType.Object: return `'${field}' must be an object, got ${shown(e.value)}`;
    case ValueErrorType.Array: return `'${field}' must be a list, got ${shown(e.value)}`;
    case ValueErrorType.ArrayMaxItems: return `'${field}' must be a list of at most ${s.maxItems} items`;
    case ValueErrorType.IntegerMinimum:
    case ValueErrorType.IntegerMaximum:
    case ValueErrorType.NumberMinimum:
    case ValueErrorType.NumberMaximum:
      return `'${field}' must be between ${s.minimum} and ${s.maximum}, got ${shown(e.value)}`;
    case ValueErrorType.NumberExclusiveMinimum:
      return `'${field}' must be > ${s.exclusiveMinimum} and <= ${s.maximum}, got ${shown(e.value)}`;
    case ValueErrorType.StringMinLength:
    case ValueErrorType.StringMaxLength:
      return `'${field}' must be ${s.minLength ?? 0} to ${s.maxLength} characters long`;
    default: return `'${field}' ${e.message.toLowerCase()}, got ${shown(e.value)}`;
  }
}

/** The schema of the object that holds the field at `path` (to name its allowed fields). */
function parentSchema(root: TSchema, path: string): Bounded | undefined {
  let node: Bounded | undefined = root as Bounded;
  for (const part of path.split('/').slice(1, -1)) {
    const props = (node as { properties?: Record<string, TSchema> } | undefined)?.properties;
    node = (props?.[part] ?? (node as { items?: TSchema } | undefined)?.items ?? Object.values((node as { patternProperties?: Record<string, TSchema> } | undefined)?.patternProperties ?? {})[0]) as Bounded | undefined;
  }
  return node;
}

/** The sentence for the first problem; an unknown field is named before a bad value, as people read it. */
function firstProblem<A extends ControlAction>(action: A, m: Record<string, unknown>): string {
  const errors = [...compiled()[action].Errors(m)];
  const e = errors.find((x) => x.type === ValueErrorType.ObjectAdditionalProperties) ?? errors[0];
  return describe(e, action, parentSchema(CONTROL_SCHEMAS[action], e.path));
}

/** Trace names are file names inside the recordings folder, never paths (the load controller checks too). */
export function checkTraceName(v: unknown): string {
  if (!traceName().Check(v)) throw new Error(`'trace' ${TraceNameSchema.errorMessage}, got ${shown(v)}`);
  return v;
}

const PATCH_FIELDS: readonly string[] = BATCHING_PATCH_FIELDS;

function validate(m: Record<string, unknown>): Validated<ControlMessage> {
  const action = m.action;
  if (typeof action !== 'string' || !(CONTROL_ACTIONS as string[]).includes(action)) {
    return { ok: false, error: `'action' must be one of ${CONTROL_ACTIONS.join(', ')}, got ${shown(action)}` };
  }
  const check = compiled()[action as ControlAction];
  if (!check.Check(m)) return { ok: false, error: firstProblem(action as ControlAction, m) };
  if (action === 'setDynamicBatching' && !Object.keys(m).some((k) => PATCH_FIELDS.includes(k))) {
    return { ok: false, error: `setDynamicBatching needs at least one of: ${PATCH_FIELDS.join(', ')}` };
  }
  if (action === 'setIterativeKnobs' && !Object.keys(m).some((k) => (ITERATIVE_KNOB_FIELDS as readonly string[]).includes(k))) {
    return { ok: false, error: `setIterativeKnobs needs at least one of: ${ITERATIVE_KNOB_FIELDS.join(', ')}` };
  }
  return { ok: true, value: check.Decode(m) as ControlMessage };
}

/**
 * Validates a raw control payload. The `token` field is authentication, not content: it is taken out
 * before validation and returned separately.
 */
export function validateControlMessage(raw: unknown): Validated<ControlMessage> & { token?: unknown } {
  // before JSON.stringify below, which recurses: 10,000 levels would overflow the stack
  if (depthExceeds(raw)) return { ok: false, error: NESTING_MESSAGE };
  let size: number;
  try {
    size = utf8Length(JSON.stringify(raw) ?? '');
  } catch {
    return { ok: false, error: 'control message is not serialisable JSON' };
  }
  if (size > MAX_CONTROL_BYTES) return { ok: false, error: `control message is ${size} bytes, more than the limit of ${MAX_CONTROL_BYTES}` };
  if (!isPlainObject(raw)) return { ok: false, error: 'control message must be an object with an action' };
  const { token, ...rest } = raw;
  return { ...validate(rest), token };
}

/**
 * The failed acknowledgement of anything a control message raised: its message and Triton's code (an
 * InferError's own, INTERNAL for anything else). A message the validator refused is INVALID_ARG.
 */
export function controlRefusal(err: unknown): ControlAck {
  const e = asInferError(err);
  return { ok: false, error: e.message, code: e.code };
}
