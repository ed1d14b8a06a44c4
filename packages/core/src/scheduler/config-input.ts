/**
 * The slice of Triton's ModelConfig the scheduler reads, with model_config.proto's field names. It is
 * structural on purpose: the config engine's full (normalised) ModelConfig is assignable to it, and tests or
 * the simulator can pass a literal without building a whole config.
 */
export type TimeoutAction = 'REJECT' | 'DELAY';

export interface QueuePolicyInput {
  timeout_action?: TimeoutAction | string;
  default_timeout_microseconds?: number | string;
  allow_timeout_override?: boolean;
  max_queue_size?: number;
}

export interface DynamicBatchingInput {
  preferred_batch_size?: readonly number[];
  max_queue_delay_microseconds?: number | string;
  preserve_ordering?: boolean;
  priority_levels?: number | string;
  default_priority_level?: number | string;
  default_queue_policy?: QueuePolicyInput;
  priority_queue_policy?: Readonly<Record<string, QueuePolicyInput>>;
}

/** Triton's ModelSequenceBatching (uint64 fields may be decimal strings, as protobuf JSON writes them). */
export interface SequenceControlInput {
  kind?: string;
  int32_false_true?: readonly number[];
  fp32_false_true?: readonly number[];
  bool_false_true?: readonly boolean[];
  data_type?: string;
}

export interface SequenceStateInput {
  input_name?: string;
  output_name?: string;
  data_type?: string;
  dims?: readonly (number | string)[];
  initial_state?: readonly {
    data_type?: string;
    dims?: readonly (number | string)[];
    zero_data?: boolean;
    data_file?: string;
    name?: string;
  }[];
  use_same_buffer_for_input_output?: boolean;
  use_growable_memory?: boolean;
}

export interface SequenceBatchingInput {
  direct?: { max_queue_delay_microseconds?: number | string; minimum_slot_utilization?: number } | null;
  oldest?: {
    max_candidate_sequences?: number;
    preferred_batch_size?: readonly number[];
    max_queue_delay_microseconds?: number | string;
    preserve_ordering?: boolean;
  } | null;
  max_sequence_idle_microseconds?: number | string;
  control_input?: readonly { name?: string; control?: readonly SequenceControlInput[] }[];
  state?: readonly SequenceStateInput[];
  iterative_sequence?: boolean;
}

export interface RateLimiterInput {
  resources?: readonly { name?: string; global?: boolean; count?: number }[];
  priority?: number;
}

export interface InstanceGroupInput {
  name?: string;
  kind?: string;
  count?: number;
  gpus?: readonly number[];
  /** the resources and priority the server's rate limiter (--rate-limit execution_count) reads */
  rate_limiter?: RateLimiterInput | null;
}

export interface SchedulerConfigInput {
  name?: string;
  max_batch_size?: number;
  dynamic_batching?: DynamicBatchingInput | null;
  sequence_batching?: SequenceBatchingInput | null;
  instance_group?: readonly InstanceGroupInput[];
  /** the scheduler reads it not: a cache answers before any queue (the simulator's door reads it, sim/cache-door.ts) */
  response_cache?: { enable?: boolean } | null;
  /** model parameters (the scheduler reads none; the simulator reads the autotuner's target from them) */
  parameters?: Readonly<Record<string, { string_value?: string }>>;
}
