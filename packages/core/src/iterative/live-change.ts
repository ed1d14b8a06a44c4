/**
 * A live change of an iterative model's knobs, planned once for the server and teaching mode: the new
 * config (its `parameters`, TensorRT-LLM's keys, as strings like every Triton parameter) and the change
 * list the acknowledgement, the config.changed event and saveConfig carry. Refused here: a model that is
 * not iterative (its live knobs are dynamic batching's), and a value outside the knob's bound. Whether the
 * running model can take the change (the KV budget against the memory budget, a sequence it holds that
 * the new knobs could never serve) is the scheduler's check, at a step boundary.
 */
import type { ConfigChange } from '../events';
import type { ModelConfig } from '../config/types';
import { errors } from '../errors/messages';
import { ITERATIVE_KNOBS, type IterativeKnobPatch } from '../live-config/iterative-knobs';
import { formatLivePath, livePath, readLivePath, writeLivePath } from '../live-config/paths';
import { limitMessage, withinLimit } from '../live-config/limits';
import { schedulerKindFor } from '../scheduler/seam';

export interface IterativeChange {
  config: ModelConfig;
  changes: ConfigChange[];
}

export function planIterativeChange(model: string, config: ModelConfig, patch: IterativeKnobPatch): IterativeChange {
  if (schedulerKindFor(config) !== 'iterative') {
    throw errors.INVALID(
      `model '${model}' is not an iterative model (sequence_batching { iterative_sequence: true }): ${ITERATIVE_KNOBS.map((k) => k.field).join(', ')} are continuous batching's knobs; change its dynamic batching instead`,
    );
  }
  const next = structuredClone(config);
  const changes: ConfigChange[] = [];
  for (const knob of ITERATIVE_KNOBS) {
    const value = patch[knob.field];
    if (value === undefined) continue;
    // the control validator checked these already; a caller without it (a test, a script) gets the same words
    if (knob.kind === 'count' && !withinLimit(knob.limit, value)) throw errors.INVALID(limitMessage(knob.limit, knob.field, value));
    if (knob.kind === 'switch' && typeof value !== 'boolean') throw errors.INVALID(`'${knob.field}' must be true or false, got ${JSON.stringify(value)}`);
    if (knob.kind === 'choice' && !knob.values.includes(String(value))) throw errors.INVALID(`'${knob.field}' must be one of ${knob.values.join(', ')}, got ${JSON.stringify(value)}`);
    const path = livePath.parameter(knob.field);
    const old = readLivePath(config, path);
    const text = String(value);
    if (old === text) continue;
    writeLivePath(next, path, text);
    changes.push({ path: formatLivePath(path), old: old ?? null, new: text });
  }
  return { config: changes.length ? next : config, changes };
}
