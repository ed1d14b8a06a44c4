/** The qa sequence models' config (accumulator with START/END/READY int32 controls, CORRID, implicit state). */
import type { SchedulerConfigInput, SequenceBatchingInput } from '@inferscope/core/scheduler/config-input.ts';

export const CONTROLS: SequenceBatchingInput['control_input'] = [
  { name: 'START', control: [{ kind: 'CONTROL_SEQUENCE_START', int32_false_true: [0, 1] }] },
  { name: 'END', control: [{ kind: 'CONTROL_SEQUENCE_END', int32_false_true: [0, 1] }] },
  { name: 'READY', control: [{ kind: 'CONTROL_SEQUENCE_READY', int32_false_true: [0, 1] }] },
  { name: 'CORRID', control: [{ kind: 'CONTROL_SEQUENCE_CORRID', data_type: 'TYPE_UINT64' }] },
];

export const STATE: SequenceBatchingInput['state'] = [
  { input_name: 'INPUT_STATE', output_name: 'OUTPUT_STATE', data_type: 'TYPE_INT32', dims: [1] },
];

export function seqConfig(opts: { maxBatch?: number; instances?: number; sb?: SequenceBatchingInput } = {}): SchedulerConfigInput {
  return {
    name: 'm',
    max_batch_size: opts.maxBatch ?? 4,
    sequence_batching: { max_sequence_idle_microseconds: 5_000_000, control_input: CONTROLS, state: STATE, ...opts.sb },
    instance_group: [{ name: 'g', kind: 'KIND_CPU', count: opts.instances ?? 1 }],
  };
}
