/**
 * Validation of `control` messages, as strict as HTTP input: a known action, only known fields, the right
 * types, sane ranges, a size limit. A message that fails validation is answered with an error and changes
 * nothing, so everything is checked here before any handler runs.
 */
import { MAX_CONTROL_BYTES, BATCHING_PATCH_FIELDS } from '@inferscope/core';
import type { ControlMessage, DynamicBatchingPatch } from '@inferscope/core';
import { depthExceeds, NESTING_MESSAGE } from '../http/json-guard';

export type Validated<T> = { ok: true; value: T } | { ok: false; error: string };

class Invalid extends Error {}

const ACTIONS = [
  'setDynamicBatching',
  'setInstanceCount',
  'loadModel',
  'unloadModel',
  'startLoad',
  'stopLoad',
  'startReplay',
  'saveConfig',
  'startRecording',
  'stopRecording',
] as const;

const PATCH_FIELDS = BATCHING_PATCH_FIELDS;

const QUEUE_POLICY_FIELDS = ['timeout_action', 'default_timeout_microseconds', 'allow_timeout_override', 'max_queue_size'];

/**
 * Priority levels a live change may ask for. Triton reads priority_levels at load time only; changing it
 * live is ours, so the bound is ours too: every level is a queue with its own policy and a row in every
 * snapshot, and 1,000,000 levels made each snapshot 10 MiB and inference 5x slower. 1,000 is far beyond
 * any real use (Triton's examples use 2-10) and costs a few KiB per snapshot.
 */
export const MAX_LIVE_PRIORITY_LEVELS = 1000;

/** one hour: longer delays or timeouts are certainly a typo (Triton takes uint64, we protect the user) */
const MAX_MICROSECONDS = 3_600_000_000;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function onlyFields(obj: Record<string, unknown>, allowed: readonly string[], where: string): void {
  for (const k of Object.keys(obj)) {
    if (!allowed.includes(k)) throw new Invalid(`unknown field '${k}' in ${where} (allowed: ${allowed.join(', ')})`);
  }
}

function int(v: unknown, field: string, min: number, max: number): number {
  if (typeof v !== 'number' || !Number.isInteger(v)) throw new Invalid(`'${field}' must be an integer, got ${JSON.stringify(v)}`);
  if (v < min || v > max) throw new Invalid(`'${field}' must be between ${min} and ${max}, got ${v}`);
  return v;
}

function num(v: unknown, field: string, minExclusive: number, max: number): number {
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new Invalid(`'${field}' must be a number, got ${JSON.stringify(v)}`);
  if (v <= minExclusive || v > max) throw new Invalid(`'${field}' must be > ${minExclusive} and <= ${max}, got ${v}`);
  return v;
}

function bool(v: unknown, field: string): boolean {
  if (typeof v !== 'boolean') throw new Invalid(`'${field}' must be true or false, got ${JSON.stringify(v)}`);
  return v;
}

/** Model names become folder names: refuse anything that could walk the file system. */
export function checkModelName(v: unknown, field = 'model'): string {
  if (typeof v !== 'string' || v.length === 0) throw new Invalid(`'${field}' must be a non-empty string`);
  if (v.length > 256) throw new Invalid(`'${field}' is longer than 256 characters`);
  if (v === '.' || v === '..' || /[/\\\0-\x1f]/.test(v)) throw new Invalid(`'${field}' is not a valid model name: ${JSON.stringify(v)}`);
  return v;
}

function version(v: unknown): string | undefined {
  if (v === undefined) return undefined;
  if (typeof v === 'number' && Number.isInteger(v) && v > 0) return String(v);
  if (typeof v === 'string' && /^[1-9][0-9]{0,17}$/.test(v)) return v;
  throw new Invalid(`'version' must be a positive integer version, got ${JSON.stringify(v)}`);
}

function queuePolicy(v: unknown, where: string): Record<string, unknown> {
  if (!isPlainObject(v)) throw new Invalid(`'${where}' must be an object`);
  onlyFields(v, QUEUE_POLICY_FIELDS, where);
  const out: Record<string, unknown> = {};
  if (v.timeout_action !== undefined) {
    if (v.timeout_action !== 'REJECT' && v.timeout_action !== 'DELAY') throw new Invalid(`'${where}.timeout_action' must be REJECT or DELAY`);
    out.timeout_action = v.timeout_action;
  }
  if (v.default_timeout_microseconds !== undefined)
    out.default_timeout_microseconds = int(v.default_timeout_microseconds, `${where}.default_timeout_microseconds`, 0, MAX_MICROSECONDS);
  if (v.allow_timeout_override !== undefined) out.allow_timeout_override = bool(v.allow_timeout_override, `${where}.allow_timeout_override`);
  if (v.max_queue_size !== undefined) out.max_queue_size = int(v.max_queue_size, `${where}.max_queue_size`, 0, 10_000_000);
  return out;
}

function batchingPatch(m: Record<string, unknown>): DynamicBatchingPatch {
  const p: DynamicBatchingPatch = {};
  if (m.max_queue_delay_microseconds !== undefined)
    p.max_queue_delay_microseconds = int(m.max_queue_delay_microseconds, 'max_queue_delay_microseconds', 0, MAX_MICROSECONDS);
  if (m.preferred_batch_size !== undefined) {
    const v = m.preferred_batch_size;
    if (!Array.isArray(v) || v.length > 64) throw new Invalid(`'preferred_batch_size' must be a list of at most 64 sizes`);
    p.preferred_batch_size = v.map((x, i) => int(x, `preferred_batch_size[${i}]`, 1, 1_000_000));
  }
  if (m.max_batch_size !== undefined) p.max_batch_size = int(m.max_batch_size, 'max_batch_size', 1, 1_000_000);
  if (m.default_priority_level !== undefined) p.default_priority_level = int(m.default_priority_level, 'default_priority_level', 0, MAX_LIVE_PRIORITY_LEVELS);
  if (m.priority_levels !== undefined) p.priority_levels = int(m.priority_levels, 'priority_levels', 0, MAX_LIVE_PRIORITY_LEVELS);
  if (m.default_queue_policy !== undefined) p.default_queue_policy = queuePolicy(m.default_queue_policy, 'default_queue_policy');
  if (m.priority_queue_policy !== undefined) {
    const v = m.priority_queue_policy;
    if (!isPlainObject(v)) throw new Invalid(`'priority_queue_policy' must be an object keyed by priority level`);
    const out: Record<string, Record<string, unknown>> = {};
    for (const [level, pol] of Object.entries(v)) {
      if (!/^[1-9][0-9]{0,5}$/.test(level) || Number(level) > MAX_LIVE_PRIORITY_LEVELS) throw new Invalid(`'priority_queue_policy' key '${level}' is not a priority level (1..${MAX_LIVE_PRIORITY_LEVELS})`);
      out[level] = queuePolicy(pol, `priority_queue_policy.${level}`);
    }
    p.priority_queue_policy = out;
  }
  if (m.preserve_ordering !== undefined) p.preserve_ordering = bool(m.preserve_ordering, 'preserve_ordering');
  if (Object.keys(p).length === 0) throw new Invalid(`setDynamicBatching needs at least one of: ${PATCH_FIELDS.join(', ')}`);
  return p;
}

/** Trace names are file names inside the recordings folder, never paths. */
export function checkTraceName(v: unknown): string {
  if (typeof v !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9._-]{0,200}$/.test(v) || v.includes('..'))
    throw new Invalid(`'trace' must be a file name in the recordings folder (letters, digits, . _ -), got ${JSON.stringify(v)}`);
  return v;
}

function validate(m: Record<string, unknown>): ControlMessage {
  const action = m.action;
  if (typeof action !== 'string' || !(ACTIONS as readonly string[]).includes(action))
    throw new Invalid(`'action' must be one of ${ACTIONS.join(', ')}, got ${JSON.stringify(action)}`);
  switch (action) {
    case 'setDynamicBatching': {
      onlyFields(m, ['action', 'model', 'version', ...PATCH_FIELDS], action);
      return { action, model: checkModelName(m.model), version: version(m.version), ...batchingPatch(m) };
    }
    case 'setInstanceCount': {
      onlyFields(m, ['action', 'model', 'version', 'group', 'count'], action);
      if (m.group !== undefined && (typeof m.group !== 'string' || m.group.length === 0 || m.group.length > 256))
        throw new Invalid(`'group' must be a non-empty string`);
      return {
        action,
        model: checkModelName(m.model),
        version: version(m.version),
        group: m.group as string | undefined,
        count: int(m.count, 'count', 1, 64),
      };
    }
    case 'loadModel':
    case 'unloadModel':
      onlyFields(m, ['action', 'model'], action);
      return { action, model: checkModelName(m.model) };
    case 'saveConfig':
      onlyFields(m, ['action', 'model', 'version', 'dryRun'], action);
      return { action, model: checkModelName(m.model), version: version(m.version), dryRun: m.dryRun === undefined ? undefined : bool(m.dryRun, 'dryRun') };
    case 'startLoad': {
      onlyFields(m, ['action', 'model', 'version', 'scenario', 'rate', 'concurrency', 'duration', 'seed', 'record', 'mode'], action);
      const scenario = m.scenario;
      if (!(typeof scenario === 'string' && scenario.length > 0 && scenario.length <= 100) && !isPlainObject(scenario))
        throw new Invalid(`'scenario' must be a preset name or a scenario object`);
      if (m.mode !== undefined && m.mode !== 'http' && m.mode !== 'inprocess') throw new Invalid(`'mode' must be http or inprocess`);
      return {
        action,
        model: checkModelName(m.model),
        version: version(m.version),
        scenario: scenario as string | Record<string, unknown>,
        rate: m.rate === undefined ? undefined : num(m.rate, 'rate', 0, 100_000),
        concurrency: m.concurrency === undefined ? undefined : int(m.concurrency, 'concurrency', 1, 1024),
        duration: m.duration === undefined ? undefined : num(m.duration, 'duration', 0, 3600),
        seed: m.seed === undefined ? undefined : int(m.seed, 'seed', 0, 2 ** 32 - 1),
        record: m.record === undefined ? undefined : bool(m.record, 'record'),
        mode: m.mode as 'http' | 'inprocess' | undefined,
      };
    }
    case 'stopLoad':
      onlyFields(m, ['action', 'id'], action);
      if (m.id !== undefined && (typeof m.id !== 'string' || m.id.length === 0 || m.id.length > 100)) throw new Invalid(`'id' must be a load id`);
      return { action, id: m.id as string | undefined };
    case 'startReplay':
      onlyFields(m, ['action', 'trace', 'speed', 'model'], action);
      return {
        action,
        trace: checkTraceName(m.trace),
        speed: m.speed === undefined ? undefined : num(m.speed, 'speed', 0, 1000),
        model: m.model === undefined ? undefined : checkModelName(m.model),
      };
    case 'startRecording': {
      onlyFields(m, ['action', 'models'], action);
      if (m.models === undefined) return { action };
      if (!Array.isArray(m.models) || m.models.length === 0 || m.models.length > 100) throw new Invalid(`'models' must be a non-empty list of model names`);
      return { action, models: m.models.map((x, i) => checkModelName(x, `models[${i}]`)) };
    }
    case 'stopRecording':
      onlyFields(m, ['action', 'id'], action);
      if (m.id !== undefined && (typeof m.id !== 'string' || m.id.length === 0 || m.id.length > 100)) throw new Invalid(`'id' must be a recording id`);
      return { action, id: m.id as string | undefined };
  }
  throw new Invalid(`unhandled action ${action}`);
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
    size = Buffer.byteLength(JSON.stringify(raw) ?? '', 'utf8');
  } catch {
    return { ok: false, error: 'control message is not serialisable JSON' };
  }
  if (size > MAX_CONTROL_BYTES) return { ok: false, error: `control message is ${size} bytes, more than the limit of ${MAX_CONTROL_BYTES}` };
  if (!isPlainObject(raw)) return { ok: false, error: 'control message must be an object with an action' };
  const { token, ...rest } = raw;
  try {
    return { ok: true, value: validate(rest), token };
  } catch (err) {
    if (err instanceof Invalid) return { ok: false, error: err.message, token };
    throw err;
  }
}
