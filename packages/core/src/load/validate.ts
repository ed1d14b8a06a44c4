/**
 * Validation of scenario JSON from files, the dashboard or the CLI, against the schemas of
 * scenario-schema.ts. Collects every problem with its path (e.g. `phases[2].rate: must be a number >= 0`)
 * so a bad file is fixed in one go. Phases and shapes are checked against the member their `type` names
 * (a union's own refusal would not say which field is wrong); what a schema cannot say (a mix needs one
 * weight above 0, a length's min <= max) is checked here.
 */
import { Type, type TObject } from '@sinclair/typebox';
import { schemaProblems } from '../util/schema-problems';
import { LENGTH_DISTRIBUTIONS, PHASES, SHAPES, ScenarioSchema, type Scenario } from './scenario-schema';

export class ScenarioError extends Error {
  override name = 'ScenarioError';
  constructor(readonly problems: string[]) {
    super(`invalid scenario:\n  ${problems.join('\n  ')}`);
  }
}

/** a replay of a long bad trace would otherwise list every arrival */
const MAX_PROBLEMS = 100;
const AS_PATHS = { brackets: true };

const TopLevel = Type.Omit(ScenarioSchema, ['phases', 'shapes']);
const LengthShapeOuter = Type.Omit(SHAPES.length, ['length']);

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
// Looked up with own() only: a type named 'constructor' or '__proto__' must not find Object.prototype's
// members (it used to, and such phases passed with any fields).
const own = <T>(table: Record<string, T>, key: string): T | undefined => (Object.prototype.hasOwnProperty.call(table, key) ? table[key] : undefined);

/** `value` against the member of `members` its `type` names */
function checkMember(members: Record<string, TObject>, value: unknown, path: string, out: string[]): void {
  if (!isObj(value)) return void out.push(`${path}: must be an object`);
  const schema = typeof value.type === 'string' ? own(members, value.type) : undefined;
  if (!schema) return void out.push(`${path}.type: must be one of ${Object.keys(members).join(', ')}, got ${JSON.stringify(value.type)}`);
  out.push(...schemaProblems(schema, value, path, AS_PATHS));
}

/** a mix whose every weight is 0 picks nothing */
function checkMix(v: unknown, path: string, out: string[]): void {
  if (Array.isArray(v) && v.length > 0 && v.every((w) => isObj(w) && w.weight === 0)) out.push(`${path}: at least one weight must be > 0`);
}

function checkShapes(s: unknown, out: string[]): void {
  if (isObj(s) && s.type === 'length') {
    // its distribution is a union of its own: checked apart, against the member its type names
    const { length, ...outer } = s;
    out.push(...schemaProblems(LengthShapeOuter, outer, 'shapes', AS_PATHS));
    if (length === undefined) return void out.push('shapes.length: is required');
    checkMember(LENGTH_DISTRIBUTIONS, length, 'shapes.length', out);
    const l = length as Record<string, unknown>;
    if ((l.type === 'uniform' || l.type === 'normal') && typeof l.min === 'number' && typeof l.max === 'number' && l.max < l.min) out.push('shapes.length: min must be <= max');
    return;
  }
  checkMember(SHAPES, s, 'shapes', out);
  if (isObj(s) && s.type === 'choice') checkMix(s.options, 'shapes.options', out);
}

export function validateScenario(input: unknown): Scenario {
  if (!isObj(input)) throw new ScenarioError(['scenario must be a JSON object']);
  const { phases, shapes, ...top } = input;
  const out = schemaProblems(TopLevel, top, '', AS_PATHS);
  for (const k of ['models', 'priorities', 'batch_sizes'] as const) checkMix(top[k], k, out);
  if (shapes !== undefined) checkShapes(shapes, out);
  if (!Array.isArray(phases) || phases.length === 0) out.push('phases: must be a non-empty array');
  else phases.forEach((p, i) => checkMember(PHASES, p, `phases[${i}]`, out));
  if (out.length > MAX_PROBLEMS) throw new ScenarioError([...out.slice(0, MAX_PROBLEMS), `... and ${out.length - MAX_PROBLEMS} more`]);
  if (out.length > 0) throw new ScenarioError(out);
  return input as Scenario;
}
