/**
 * Validation of scenario JSON from files, the dashboard or the CLI. Collects every problem with its path
 * (e.g. `phases[2].rate: must be a number >= 0`) so a bad file is fixed in one go.
 */
import type { Scenario } from './scenario';

export class ScenarioError extends Error {
  override name = 'ScenarioError';
  constructor(readonly problems: string[]) {
    super(`invalid scenario:\n  ${problems.join('\n  ')}`);
  }
}

// Looked up with own() only: a phase type or field named 'constructor' or '__proto__' must not find
// Object.prototype's members (it used to, and such phases passed with any fields).
const PHASE_FIELDS: Record<string, Record<string, 'num' | 'num?' | 'str?' | 'arr'>> = {
  constant: { duration_s: 'num', rate: 'num' },
  poisson: { duration_s: 'num', rate: 'num' },
  ramp: { duration_s: 'num', from: 'num', to: 'num', arrival: 'str?' },
  burst: { duration_s: 'num', rate: 'num', burst_size: 'num', burst_every_s: 'num', burst_spread_us: 'num?' },
  closed: { duration_s: 'num', concurrency: 'num', think_us: 'num?' },
  idle: { duration_s: 'num' },
  replay: { duration_s: 'num', arrivals: 'arr', speed: 'num?' },
};

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const own = <T>(table: Record<string, T>, key: string): T | undefined => (Object.prototype.hasOwnProperty.call(table, key) ? table[key] : undefined);

/** Every field of `obj` not in `allowed` is a problem: validation is strict at every level. */
function onlyFields(obj: Record<string, unknown>, allowed: readonly string[], path: string, out: string[]): void {
  for (const k of Object.keys(obj)) if (!allowed.includes(k)) out.push(`${path}.${k}: unknown field (known: ${allowed.join(', ')})`);
}
const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;

function checkWeighted(v: unknown, path: string, out: string[], valueOk: (x: unknown) => boolean, what: string): void {
  if (!Array.isArray(v) || v.length === 0) return void out.push(`${path}: must be a non-empty array of {value, weight}`);
  v.forEach((w, i) => {
    if (!isObj(w)) return void out.push(`${path}[${i}]: must be an object {value, weight}`);
    onlyFields(w, ['value', 'weight'], `${path}[${i}]`, out);
    if (!valueOk(w.value)) out.push(`${path}[${i}].value: must be ${what}`);
    if (!isNum(w.weight)) out.push(`${path}[${i}].weight: must be a number >= 0`);
  });
  if (v.every((w) => isObj(w) && w.weight === 0)) out.push(`${path}: at least one weight must be > 0`);
}

const posInt = (x: unknown) => typeof x === 'number' && Number.isInteger(x) && x >= 1;

export function validateScenario(input: unknown): Scenario {
  const out: string[] = [];
  if (!isObj(input)) throw new ScenarioError(['scenario must be a JSON object']);
  const known = new Set(['name', 'description', 'seed', 'models', 'priorities', 'batch_sizes', 'shapes', 'timeout_us', 'phases']);
  for (const k of Object.keys(input)) if (!known.has(k)) out.push(`${k}: unknown field (known: ${[...known].join(', ')})`);
  if (typeof input.name !== 'string' || input.name === '') out.push('name: must be a non-empty string');
  if (input.seed !== undefined && !(typeof input.seed === 'number' && Number.isInteger(input.seed))) out.push('seed: must be an integer');
  if (input.timeout_us !== undefined && !isNum(input.timeout_us)) out.push('timeout_us: must be a number >= 0');
  if (input.models !== undefined) checkWeighted(input.models, 'models', out, (x) => typeof x === 'string' && x !== '', 'a model name');
  if (input.priorities !== undefined) checkWeighted(input.priorities, 'priorities', out, posInt, 'an integer >= 1');
  if (input.batch_sizes !== undefined) checkWeighted(input.batch_sizes, 'batch_sizes', out, posInt, 'an integer >= 1');
  if (input.shapes !== undefined) checkShapes(input.shapes, out);
  if (!Array.isArray(input.phases) || input.phases.length === 0) out.push('phases: must be a non-empty array');
  else input.phases.forEach((p, i) => checkPhase(p, `phases[${i}]`, out));
  if (out.length > 0) throw new ScenarioError(out);
  return input as unknown as Scenario;
}

function checkPhase(p: unknown, path: string, out: string[]): void {
  if (!isObj(p)) return void out.push(`${path}: must be an object`);
  const fields = typeof p.type === 'string' ? own(PHASE_FIELDS, p.type) : undefined;
  if (!fields) return void out.push(`${path}.type: must be one of ${Object.keys(PHASE_FIELDS).join(', ')}, got ${JSON.stringify(p.type)}`);
  for (const [k, kind] of Object.entries(fields)) {
    const v = p[k];
    if (kind === 'num' && !isNum(v)) out.push(`${path}.${k}: must be a number >= 0`);
    if (kind === 'num?' && v !== undefined && !isNum(v)) out.push(`${path}.${k}: must be a number >= 0`);
    if (kind === 'str?' && v !== undefined && typeof v !== 'string') out.push(`${path}.${k}: must be a string`);
    if (kind === 'arr' && !Array.isArray(v)) out.push(`${path}.${k}: must be an array`);
  }
  for (const k of Object.keys(p)) if (k !== 'type' && k !== 'label' && own(fields, k) === undefined) out.push(`${path}.${k}: unknown field for a ${p.type} phase`);
  if (p.label !== undefined && typeof p.label !== 'string') out.push(`${path}.label: must be a string`);
  if (p.type === 'ramp' && p.arrival !== undefined && p.arrival !== 'poisson' && p.arrival !== 'uniform') out.push(`${path}.arrival: must be poisson or uniform`);
  if (p.type === 'burst' && isNum(p.burst_every_s) && p.burst_every_s <= 0) out.push(`${path}.burst_every_s: must be > 0`);
  if (p.type === 'closed' && !posInt(p.concurrency)) out.push(`${path}.concurrency: must be an integer >= 1`);
  if (p.type === 'replay' && Array.isArray(p.arrivals)) {
    p.arrivals.forEach((a, i) => {
      if (!isObj(a) || !isNum(a.t_us) || !posInt(a.batch_size)) out.push(`${path}.arrivals[${i}]: needs t_us >= 0 and batch_size >= 1`);
      else onlyFields(a, ARRIVAL_FIELDS, `${path}.arrivals[${i}]`, out);
    });
  }
  const rates = ['rate', 'from', 'to'].map((k) => p[k]).filter(isNum);
  if (rates.some((r) => r > 1e6)) out.push(`${path}: rates above 1,000,000/s are not supported`);
}

/** what a replayed arrival may carry (ReplayArrival in scenario.ts, plus timeout_us of Arrival) */
const ARRIVAL_FIELDS = ['t_us', 'model', 'version', 'batch_size', 'priority', 'shape', 'timeout_us', 'id'];

function checkShapes(s: unknown, out: string[]): void {
  if (!isObj(s)) return void out.push('shapes: must be an object');
  onlyFields(s, s.type === 'length' ? ['type', 'dims', 'length', 'bucket'] : s.type === 'choice' ? ['type', 'options'] : ['type', 'dims'], 'shapes', out);
  if (s.type === 'length' && isObj(s.length)) {
    const l = s.length;
    onlyFields(l, l.type === 'choice' ? ['type', 'values'] : l.type === 'normal' ? ['type', 'mean', 'std', 'min', 'max'] : ['type', 'min', 'max'], 'shapes.length', out);
  }
  const dims = (v: unknown) => Array.isArray(v) && v.every((d) => typeof d === 'number' && Number.isInteger(d) && d >= -1);
  if (s.type === 'fixed') {
    if (s.dims !== undefined && !dims(s.dims)) out.push('shapes.dims: must be an array of integers');
  } else if (s.type === 'choice') {
    checkWeighted(s.options, 'shapes.options', out, dims, 'an array of integers');
  } else if (s.type === 'length') {
    if (s.dims !== undefined && !dims(s.dims)) out.push('shapes.dims: must be an array of integers with one -1');
    const l = s.length;
    if (!isObj(l)) out.push('shapes.length: must be a distribution object');
    else if (l.type === 'uniform') {
      if (!posInt(l.min) || !posInt(l.max) || (l.max as number) < (l.min as number)) out.push('shapes.length: uniform needs integers 1 <= min <= max');
    } else if (l.type === 'normal') {
      if (!isNum(l.mean) || !isNum(l.std) || !posInt(l.min) || !posInt(l.max)) out.push('shapes.length: normal needs mean, std, min, max');
    } else if (l.type === 'choice') {
      if (!Array.isArray(l.values) || l.values.length === 0 || !l.values.every(posInt)) out.push('shapes.length.values: must be integers >= 1');
    } else out.push('shapes.length.type: must be uniform, normal or choice');
    if (s.bucket !== undefined && !posInt(s.bucket)) out.push('shapes.bucket: must be an integer >= 1');
  } else out.push('shapes.type: must be fixed, choice or length');
}
