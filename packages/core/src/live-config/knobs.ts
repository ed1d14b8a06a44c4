/**
 * The knobs a person turns while a model runs, in one table: the config field each one is, the short key a
 * shared link carries, the words an A/B patch accepts, and the live limit that bounds it. A shared link
 * (the dashboard's URL state), a lesson's demo knobs, the dashboard's A/B fields and `inferscope ab` all
 * read this table and this grammar, so a value one of them writes is one the others read, and one the
 * server accepts.
 *
 * Why a table: the same four knobs had a URL key in the dashboard, another name in its A/B grammar and a
 * third (the proto's) in the CLI's, each with its own parser; a patch that worked in one was refused by
 * the other ("delay=2000" in the dashboard, "max_queue_delay_microseconds=2000" on the command line).
 */
import { DYNAMIC_BATCHING_FIELDS, type DynamicBatchingPatch } from './fields';
import { LIVE_LIMITS, limitMessage, sizesLengthMessage, withinLimit, type LiveLimitName } from './limits';

export interface Knob {
  /** model_config.proto's name (the instance count is its group's `count`) */
  readonly field: KnobField;
  /** the key of a shared link (`?delay=2000&pbs=8,16`) */
  readonly urlKey: KnobUrlKey;
  /** the word a patch is shown with (`delay=2000 preferred=8,16`), accepted too */
  readonly word: string;
  /** the other words an A/B patch accepts for it */
  readonly aliases: readonly string[];
  /** the bound of each value (of each element for a list) */
  readonly limit: LiveLimitName;
  /** a list of values (`8,16`), bounded in length by LIVE_LIMITS.preferred_batch_sizes */
  readonly list?: true;
}

export type KnobField = 'max_queue_delay_microseconds' | 'preferred_batch_size' | 'max_batch_size' | 'instance_count';
export type KnobUrlKey = 'delay' | 'pbs' | 'mbs' | 'inst';

/** The knobs' values by URL key (a shared link's, a lesson's demo knobs). */
export interface KnobValues {
  delay?: number;
  pbs?: number[];
  mbs?: number;
  inst?: number;
}

export const KNOBS: readonly Knob[] = [
  { field: 'max_queue_delay_microseconds', urlKey: 'delay', word: 'delay', aliases: ['delay_us'], limit: 'max_queue_delay_microseconds' },
  { field: 'preferred_batch_size', urlKey: 'pbs', word: 'preferred', aliases: [], limit: 'preferred_batch_size', list: true },
  { field: 'max_batch_size', urlKey: 'mbs', word: 'max_batch', aliases: [], limit: 'max_batch_size' },
  { field: 'instance_count', urlKey: 'inst', word: 'instances', aliases: ['count'], limit: 'instance_count' },
];

/** The knob a word names: its field, its URL key or one of its aliases. */
export function knobNamed(word: string): Knob | undefined {
  return KNOBS.find((k) => k.field === word || k.urlKey === word || k.word === word || k.aliases.includes(word));
}

/** What a patch changes: the dynamic batching fields (any of them, in JSON) and the instance count. */
export interface KnobPatch extends DynamicBatchingPatch {
  instance_count?: number;
}

/** A knob's value checked against its live limit: the words every refusal uses, or undefined when it fits. */
export function knobValueProblem(knob: Knob, value: unknown): string | undefined {
  if (!knob.list) return withinLimit(knob.limit, value) ? undefined : limitMessage(knob.limit, knob.field, value);
  if (!Array.isArray(value)) return `'${knob.field}' must be a list of integers, got ${JSON.stringify(value)}`;
  if (value.length > LIVE_LIMITS.preferred_batch_sizes.max) return sizesLengthMessage(knob.field, value.length);
  const bad = value.find((v) => !withinLimit(knob.limit, v));
  return bad === undefined ? undefined : limitMessage(knob.limit, knob.field, bad);
}

/** A knob's value as text (a link's query value, a patch's word): lists joined by commas. */
export function formatKnobValue(value: number | readonly number[]): string {
  return Array.isArray(value) ? value.join(',') : String(value);
}

/**
 * One patch grammar, for the dashboard's A/B fields and `inferscope ab --a/--b`:
 * - a JSON object of fields (`{"max_queue_delay_microseconds": 2000, "preserve_ordering": true}`);
 * - or `key=value` words separated by spaces or `;`, a key being a knob's field, URL key or alias, or any
 *   other dynamic_batching field (`delay=2000 preferred=8,16 instances=2`,
 *   `max_queue_delay_microseconds=2000;preserve_ordering=true`); a list is `8,16` or `[8,16]`;
 * - or a bare integer: a delay in µs.
 * Knob values are checked against their live limits here; the server checks the rest of a patch when it
 * is applied (the CLI checks it with the server's own validator before any traffic).
 */
export function parseKnobPatch(text: string): KnobPatch {
  const t = text.trim();
  if (t === '') throw new Error('give at least one field, e.g. delay=2000');
  const patch: Record<string, unknown> = {};
  if (/^\d+$/.test(t)) {
    patch.max_queue_delay_microseconds = Number(t);
  } else if (t.startsWith('{')) {
    let obj: unknown;
    try {
      obj = JSON.parse(t);
    } catch {
      throw new Error('not valid JSON');
    }
    if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) throw new Error('a JSON patch is an object of fields');
    for (const [key, value] of Object.entries(obj)) patch[fieldOf(key)] = value;
  } else {
    for (const word of t.split(/[\s;]+/).filter(Boolean)) {
      const eq = word.indexOf('=');
      if (eq <= 0 || eq === word.length - 1) throw new Error(`'${word}': write key=value, e.g. delay=2000, preferred=8,16, max_batch=32 or instances=2`);
      const field = fieldOf(word.slice(0, eq));
      patch[field] = wordValue(word.slice(eq + 1), knobNamed(field)?.list === true);
    }
  }
  if (Object.keys(patch).length === 0) throw new Error('give at least one field, e.g. delay=2000');
  for (const knob of KNOBS) {
    if (!(knob.field in patch)) continue;
    const problem = knobValueProblem(knob, patch[knob.field]);
    if (problem) throw new Error(problem);
  }
  return patch as KnobPatch;
}

/** The field a patch key names: a knob's field (by any of its names) or a dynamic_batching field as it is. */
function fieldOf(key: string): string {
  const knob = knobNamed(key);
  if (knob) return knob.field;
  if ((DYNAMIC_BATCHING_FIELDS as readonly string[]).includes(key)) return key;
  const names = KNOBS.map((k) => [k.word, k.urlKey, ...k.aliases].join('/')).join(', ');
  throw new Error(`unknown field '${key}': a patch sets ${names} or a dynamic_batching field`);
}

function wordValue(raw: string, list: boolean): unknown {
  if (list && /^[\d,\s]+$/.test(raw)) return raw.split(',').filter((s) => s !== '').map(Number);
  try {
    return JSON.parse(raw);
  } catch {
    return raw; // a bare string (an enum value of a queue policy, say): the server judges it
  }
}

/** A shared link's knob values: each knob present in the query and inside its live limit (others left out). */
export function knobValuesFromQuery(get: (key: string) => string | null): KnobValues {
  const out: Record<string, unknown> = {};
  for (const knob of KNOBS) {
    const raw = get(knob.urlKey);
    if (raw === null || raw.trim() === '') continue;
    const value = knob.list ? raw.split(/[ ,]+/).filter(Boolean).map(Number) : Number(raw);
    if (knobValueProblem(knob, value) === undefined) out[knob.urlKey] = value;
  }
  return out as KnobValues;
}

/** The knob values a patch sets, by URL key (what a shared link then carries). */
export function knobValuesOfPatch(patch: KnobPatch): KnobValues {
  const out: Record<string, unknown> = {};
  for (const knob of KNOBS) if (patch[knob.field] !== undefined) out[knob.urlKey] = patch[knob.field];
  return out as KnobValues;
}

/** The patch in the grammar's own words (what a report or a chart's legend shows; it parses back to the patch). */
export function describeKnobPatch(patch: KnobPatch): string {
  return Object.entries(patch)
    .map(([field, value]) => {
      const knob = knobNamed(field);
      const text = knob && (typeof value === 'number' || Array.isArray(value)) ? formatKnobValue(value as number | number[]) : JSON.stringify(value);
      return `${knob?.word ?? field}=${text}`;
    })
    .join(' ');
}

/** The batching part of a patch (what setDynamicBatching carries) and its instance count apart. */
export function splitKnobPatch(patch: KnobPatch): { batching: DynamicBatchingPatch; instances?: number } {
  const { instance_count, ...batching } = patch;
  return instance_count === undefined ? { batching } : { batching, instances: instance_count };
}
