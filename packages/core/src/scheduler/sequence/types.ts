/**
 * What the sequence batcher adds to the scheduler's contract (types.ts): the sequence fields a request
 * comes with, and the step description the batcher hands the executor with every batch position, so each
 * backend builds the control and state tensors from one description instead of deciding them itself.
 */

/**
 * A correlation id, as Triton's InferenceRequest::SequenceId: a uint64 (a bigint here, so ids past 2^53 stay
 * exact) or a string. `42n` and `'42'` are different sequences; 0n and '' mean "no sequence".
 */
export type CorrelationId = bigint | string;

/** The sequence fields of a request (HTTP parameters sequence_id/sequence_start/sequence_end, gRPC InferParameter). */
export interface SequenceFields {
  id: CorrelationId;
  start?: boolean;
  end?: boolean;
}

export type ControlKind = 'START' | 'END' | 'READY' | 'CORRID';

/** One control input tensor's value at one batch position: a tensor of shape [1] (plus the batch dimension). */
export interface ControlValue {
  /** the model's input name (control_input.name) */
  name: string;
  kind: ControlKind;
  /** Triton data type: TYPE_INT32 / TYPE_FP32 / TYPE_BOOL for START, END, READY; CORRID's own data_type */
  dataType: string;
  /** number for INT32/FP32/UINT32/INT32, boolean for BOOL, bigint for UINT64/INT64, string for STRING */
  value: number | boolean | bigint | string;
}

/** One implicit state tensor: raw little-endian bytes, as the backends exchange tensors. */
export interface StateValue {
  /** Triton data type of the state (state.data_type) */
  dataType: string;
  /** with the batch dimension (1) when the model batches */
  shape: readonly number[];
  data: Uint8Array;
}

/**
 * The batcher's description of one batch position (set on each request it hands the executor as `step`).
 * A position is a real request (`ready` true) or a null request padding an empty slot below the highest
 * ready one (direct strategy): its payload is a real request's of the same batch, lent for its shapes only
 * (Triton sends such a copy), its result is discarded, and it is no inference.
 */
export interface SequenceStep {
  /** the sequence slot of the instance (the batch position in the direct strategy) */
  slot: number;
  ready: boolean;
  /** the request's correlation id; 0n for a null request (Triton: "the model can't assume ... CORRID") */
  correlationId: CorrelationId;
  start: boolean;
  end: boolean;
  /** every control_input of the config with its value at this position */
  controls: readonly ControlValue[];
  /** implicit state inputs for this step, by state input_name */
  stateIn: Readonly<Record<string, StateValue>>;
  /**
   * The executor writes the state outputs of this position here (by state output_name) before it answers;
   * they become the next step's inputs. A state the model does not write keeps its value. Ignored for nulls.
   */
  stateOut?: Record<string, StateValue>;
}
