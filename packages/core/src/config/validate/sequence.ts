/**
 * Sequence batching rules (Triton's GetBooleanSequenceControlProperties, GetTypedSequenceControlProperties
 * and the sequence part of ValidateModelConfig): control tensors, their false/true values, the CORRID
 * data type, oldest-strategy preferred sizes and direct-strategy slot utilisation.
 */
import { nameOf, type Rule } from './issues';
import type { ModelSequenceBatching, SequenceControlKind } from '../types';

const FALSE_TRUE = `'int32_false_true', 'fp32_false_true' or 'bool_false_true'`;

/** First problem with the controls of one kind, or undefined. `typed` = CORRID (a data type, no values). */
function checkControlKind(sb: ModelSequenceBatching, kind: SequenceControlKind, model: string, typed: boolean): string | undefined {
  const seenTensors = new Set<string>();
  let seen = false;
  for (const input of sb.control_input ?? []) {
    if (!input.name) return `sequence batching control tensor must have a name for ${model}`;
    if (seenTensors.has(input.name)) {
      return `sequence batching control tensor '${input.name}' is specified for multiple control kinds for ${model}`;
    }
    seenTensors.add(input.name);
    for (const c of input.control ?? []) {
      if ((c.kind ?? 'CONTROL_SEQUENCE_START') !== kind) continue;
      if (seen) return `sequence batching specifies multiple ${kind} tensors for ${model}`;
      seen = true;
      const nInt = (c.int32_false_true ?? []).length;
      const nFp = (c.fp32_false_true ?? []).length;
      const nBool = (c.bool_false_true ?? []).length;
      if (typed) {
        if (nInt + nFp + nBool > 0) return `sequence batching must not specify either ${FALSE_TRUE} for ${kind} for ${model}`;
        continue;
      }
      if (nInt + nFp + nBool === 0) return `sequence batching must specify either ${FALSE_TRUE} for ${kind} for ${model}`;
      if ([nInt, nFp, nBool].filter((n) => n > 0).length > 1) {
        return `sequence batching specifies more than one from 'int32_false_true', 'fp32_false_true' and 'bool_false_true' for ${kind} for ${model}`;
      }
      const [field, n] = nInt > 0 ? ['int32_false_true', nInt] : nFp > 0 ? ['fp32_false_true', nFp] : ['bool_false_true', nBool];
      if (n !== 2) return `sequence batching control '${field}' must have exactly 2 entries for ${kind} for ${model}`;
    }
  }
  return undefined;
}

const CORRID_TYPES = new Set(['TYPE_UINT64', 'TYPE_INT64', 'TYPE_UINT32', 'TYPE_INT32', 'TYPE_STRING']);

export const validateSequenceBatching: Rule = (config, issues) => {
  const sb = config.sequence_batching;
  if (!sb) return;
  const name = nameOf(config);
  const path = 'sequence_batching.control_input';
  for (const kind of ['CONTROL_SEQUENCE_START', 'CONTROL_SEQUENCE_END', 'CONTROL_SEQUENCE_READY'] as const) {
    const problem = checkControlKind(sb, kind, name, false);
    if (problem) {
      issues.add(problem, path, problem.includes('must specify either')
        ? `add the values the model reads as false and true, e.g. int32_false_true: [ 0, 1 ]`
        : undefined);
      return; // later kinds would repeat the same tensor-name problems
    }
  }
  const corrid = checkControlKind(sb, 'CONTROL_SEQUENCE_CORRID', name, true);
  if (corrid) {
    issues.add(corrid, path, 'CONTROL_SEQUENCE_CORRID takes a data_type instead of false/true values');
    return;
  }
  for (const input of sb.control_input ?? []) {
    for (const c of input.control ?? []) {
      if (c.kind === 'CONTROL_SEQUENCE_CORRID' && !CORRID_TYPES.has(c.data_type ?? 'TYPE_INVALID')) {
        issues.add(
          `unexpected data type for control CONTROL_SEQUENCE_CORRID for ${name}. ` +
            'Allowed data types are TYPE_UINT64, TYPE_INT64, TYPE_UINT32, TYPE_INT32 and TYPE_STRING',
          path,
        );
      }
    }
  }

  if (sb.oldest) {
    const maxBatch = config.max_batch_size ?? 0;
    for (const size of sb.oldest.preferred_batch_size ?? []) {
      if (size <= 0) {
        issues.add(`sequence batching preferred batch size must be positive for ${name}`, 'sequence_batching.oldest.preferred_batch_size');
        break;
      }
      if (size > maxBatch) {
        issues.add(`sequence batching preferred batch size must be <= max batch size for ${name}`,
          'sequence_batching.oldest.preferred_batch_size');
        break;
      }
    }
  }
  if (sb.direct) {
    const u = sb.direct.minimum_slot_utilization ?? 0;
    if (u < 0 || u > 1 || Number.isNaN(u)) {
      issues.add(`sequence batching minimum slot utilization must be in range (0.0, 1.0] for ${name}`,
        'sequence_batching.direct.minimum_slot_utilization');
    }
  }
};
