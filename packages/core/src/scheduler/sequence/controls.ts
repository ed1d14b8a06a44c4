/**
 * The control inputs of a sequence model (sequence_batching.control_input) and their values at a batch
 * position. Triton builds five override sets once (start, end, start+end, continue, not-ready:
 * CreateBooleanControlTensors) and a CORRID tensor per request (SetControlTensors); the same values come out
 * of `controlValues` here, so every backend turns one description into tensors.
 */
import type { SequenceBatchingInput } from '../config-input';
import type { ControlKind, ControlValue, CorrelationId } from './types';

interface BoolControl {
  name: string;
  kind: Exclude<ControlKind, 'CORRID'>;
  dataType: 'TYPE_INT32' | 'TYPE_FP32' | 'TYPE_BOOL';
  /** [false, true] as the model reads them */
  values: readonly [number | boolean, number | boolean];
}

export interface ControlTable {
  /** START, END, READY in config order */
  bools: readonly BoolControl[];
  corrid?: { name: string; dataType: string };
}

const KIND: Record<string, ControlKind> = {
  CONTROL_SEQUENCE_START: 'START', CONTROL_SEQUENCE_END: 'END', CONTROL_SEQUENCE_READY: 'READY', CONTROL_SEQUENCE_CORRID: 'CORRID',
};

/** The table of a validated config (config/validate/sequence.ts has refused malformed controls). */
export function controlTable(sb: SequenceBatchingInput | null | undefined): ControlTable {
  const bools: BoolControl[] = [];
  let corrid: ControlTable['corrid'];
  for (const input of sb?.control_input ?? []) {
    for (const c of input.control ?? []) {
      const kind = KIND[c.kind ?? 'CONTROL_SEQUENCE_START'];
      const name = input.name ?? '';
      if (kind === 'CORRID') {
        corrid = { name, dataType: c.data_type ?? 'TYPE_INVALID' };
      } else if (kind) {
        const [dataType, values] =
          (c.int32_false_true?.length ?? 0) > 0 ? ['TYPE_INT32' as const, c.int32_false_true!]
          : (c.fp32_false_true?.length ?? 0) > 0 ? ['TYPE_FP32' as const, c.fp32_false_true!]
          : ['TYPE_BOOL' as const, c.bool_false_true ?? [false, true]];
        bools.push({ name, kind, dataType, values: [values[0], values[1]] });
      }
    }
  }
  return { bools, corrid };
}

/** The CORRID tensor's element for `id`, as Triton copies the id's bytes into a tensor of the control's type. */
function corridValue(dataType: string, id: CorrelationId): bigint | number | string {
  if (dataType === 'TYPE_STRING') return typeof id === 'string' ? id : '';
  const n = typeof id === 'bigint' ? id : 0n;
  switch (dataType) {
    case 'TYPE_INT64': return BigInt.asIntN(64, n);
    case 'TYPE_UINT32': return Number(BigInt.asUintN(32, n));
    case 'TYPE_INT32': return Number(BigInt.asIntN(32, n));
    default: return BigInt.asUintN(64, n);
  }
}

/**
 * Every control's value at one position. A null request (not ready) gets START, END and READY false and
 * CORRID 0 (Triton: when READY is false the model may not read the other inputs, CORRID included).
 */
export function controlValues(table: ControlTable, at: { ready: boolean; start: boolean; end: boolean; id: CorrelationId }): ControlValue[] {
  const out: ControlValue[] = [];
  for (const c of table.bools) {
    const on = at.ready && (c.kind === 'READY' || (c.kind === 'START' ? at.start : at.end));
    out.push({ name: c.name, kind: c.kind, dataType: c.dataType, value: c.values[on ? 1 : 0] });
  }
  if (table.corrid) {
    const id = at.ready ? at.id : typeof at.id === 'string' ? '' : 0n;
    out.push({ name: table.corrid.name, kind: 'CORRID', dataType: table.corrid.dataType, value: corridValue(table.corrid.dataType, id) });
  }
  return out;
}
