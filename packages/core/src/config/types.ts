/**
 * ModelConfig: Triton's model_config.proto (triton-inference-server/common) as TypeScript.
 *
 * Conventions, chosen so that `JSON.stringify(config)` equals Triton's `GET /v2/models/{m}/config`:
 * - field names exactly as in the proto (snake_case);
 * - enums as their string names ('TYPE_FP32', 'KIND_CPU', 'REJECT' ...);
 * - int64/uint64 as JS numbers (Triton's JSON writer also turns them back into numbers);
 * - proto maps as Record<string, T> (map<uint64, ...> keys are the decimal level, e.g. '1');
 * - every field optional, as in proto3: absent = the proto default (0, '', false, empty, unset message).
 *   normalizeModelConfig() fills the defaults Triton fills.
 *
 * The parser's schema table (./schema.ts) lists the same messages and fields; a compile-time check there
 * makes both lists agree, so a field added here without the schema (or vice versa) fails `tsc`.
 */

// ---------------------------------------------------------------------------------------------- enums

export type DataType =
  | 'TYPE_INVALID'
  | 'TYPE_BOOL'
  | 'TYPE_UINT8' | 'TYPE_UINT16' | 'TYPE_UINT32' | 'TYPE_UINT64'
  | 'TYPE_INT8' | 'TYPE_INT16' | 'TYPE_INT32' | 'TYPE_INT64'
  | 'TYPE_FP16' | 'TYPE_FP32' | 'TYPE_FP64'
  | 'TYPE_STRING'
  | 'TYPE_BF16';

export type InstanceGroupKind = 'KIND_AUTO' | 'KIND_GPU' | 'KIND_CPU' | 'KIND_MODEL';
export type SecondaryDeviceKind = 'KIND_NVDLA';
export type InputFormat = 'FORMAT_NONE' | 'FORMAT_NHWC' | 'FORMAT_NCHW';
export type BatchInputKind =
  | 'BATCH_ELEMENT_COUNT'
  | 'BATCH_ACCUMULATED_ELEMENT_COUNT'
  | 'BATCH_ACCUMULATED_ELEMENT_COUNT_WITH_ZERO'
  | 'BATCH_MAX_ELEMENT_COUNT_AS_SHAPE'
  | 'BATCH_ITEM_SHAPE'
  | 'BATCH_ITEM_SHAPE_FLATTEN';
export type BatchOutputKind = 'BATCH_SCATTER_WITH_INPUT_SHAPE';
export type ModelPriority = 'PRIORITY_DEFAULT' | 'PRIORITY_MAX' | 'PRIORITY_MIN';
export type TimeoutAction = 'REJECT' | 'DELAY';
export type SequenceControlKind =
  | 'CONTROL_SEQUENCE_START'
  | 'CONTROL_SEQUENCE_READY'
  | 'CONTROL_SEQUENCE_END'
  | 'CONTROL_SEQUENCE_CORRID';

// -------------------------------------------------------------------------------- rate limiter, groups

export interface ModelRateLimiterResource {
  name?: string;
  global?: boolean;
  count?: number; // uint32
}

export interface ModelRateLimiter {
  resources?: ModelRateLimiterResource[];
  priority?: number; // uint32
}

export interface ModelInstanceGroupSecondaryDevice {
  kind?: SecondaryDeviceKind;
  device_id?: number; // int64
}

export interface ModelInstanceGroup {
  name?: string;
  kind?: InstanceGroupKind;
  count?: number; // int32
  rate_limiter?: ModelRateLimiter;
  gpus?: number[]; // int32
  secondary_devices?: ModelInstanceGroupSecondaryDevice[];
  profile?: string[];
  passive?: boolean;
  host_policy?: string;
}

// ------------------------------------------------------------------------------------- inputs/outputs

export interface ModelTensorReshape {
  shape?: number[]; // int64
}

export interface ModelInput {
  name?: string;
  data_type?: DataType;
  format?: InputFormat;
  dims?: number[]; // int64
  reshape?: ModelTensorReshape;
  is_shape_tensor?: boolean;
  allow_ragged_batch?: boolean;
  optional?: boolean;
  is_non_linear_format_io?: boolean;
}

export interface ModelOutput {
  name?: string;
  data_type?: DataType;
  dims?: number[]; // int64
  reshape?: ModelTensorReshape;
  label_filename?: string;
  is_shape_tensor?: boolean;
  is_non_linear_format_io?: boolean;
}

export interface BatchInput {
  kind?: BatchInputKind;
  target_name?: string[];
  data_type?: DataType;
  source_input?: string[];
}

export interface BatchOutput {
  target_name?: string[];
  kind?: BatchOutputKind;
  source_input?: string[];
}

// ------------------------------------------------------------------------------------ version policy

export interface ModelVersionPolicyLatest {
  num_versions?: number; // uint32
}
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface ModelVersionPolicyAll {}
export interface ModelVersionPolicySpecific {
  versions?: number[]; // int64
}

/** oneof policy_choice: at most one of latest / all / specific */
export interface ModelVersionPolicy {
  latest?: ModelVersionPolicyLatest;
  all?: ModelVersionPolicyAll;
  specific?: ModelVersionPolicySpecific;
}

// -------------------------------------------------------------------------------------- optimization

export interface ModelOptimizationPolicyGraph {
  level?: number; // int32
}

export interface ModelOptimizationPolicyCudaGraphSpecShape {
  dim?: number[]; // int64
}

export interface ModelOptimizationPolicyCudaGraphSpecLowerBound {
  batch_size?: number; // int32
  input?: Record<string, ModelOptimizationPolicyCudaGraphSpecShape>;
}

export interface ModelOptimizationPolicyCudaGraphSpec {
  batch_size?: number; // int32
  input?: Record<string, ModelOptimizationPolicyCudaGraphSpecShape>;
  graph_lower_bound?: ModelOptimizationPolicyCudaGraphSpecLowerBound;
}

export interface ModelOptimizationPolicyCuda {
  graphs?: boolean;
  busy_wait_events?: boolean;
  graph_spec?: ModelOptimizationPolicyCudaGraphSpec[];
  output_copy_stream?: boolean;
}

export interface ModelOptimizationPolicyExecutionAcceleratorsAccelerator {
  name?: string;
  parameters?: Record<string, string>;
}

export interface ModelOptimizationPolicyExecutionAccelerators {
  gpu_execution_accelerator?: ModelOptimizationPolicyExecutionAcceleratorsAccelerator[];
  cpu_execution_accelerator?: ModelOptimizationPolicyExecutionAcceleratorsAccelerator[];
}

export interface ModelOptimizationPolicyPinnedMemoryBuffer {
  enable?: boolean;
}

export interface ModelOptimizationPolicy {
  graph?: ModelOptimizationPolicyGraph;
  priority?: ModelPriority;
  cuda?: ModelOptimizationPolicyCuda;
  execution_accelerators?: ModelOptimizationPolicyExecutionAccelerators;
  input_pinned_memory?: ModelOptimizationPolicyPinnedMemoryBuffer;
  output_pinned_memory?: ModelOptimizationPolicyPinnedMemoryBuffer;
  gather_kernel_buffer_threshold?: number; // uint32
  eager_batching?: boolean;
}

// ------------------------------------------------------------------------------------ dynamic batching

export interface ModelQueuePolicy {
  timeout_action?: TimeoutAction;
  default_timeout_microseconds?: number; // uint64
  allow_timeout_override?: boolean;
  max_queue_size?: number; // uint32
}

export interface ModelDynamicBatching {
  preferred_batch_size?: number[]; // int32
  max_queue_delay_microseconds?: number; // uint64
  preserve_ordering?: boolean;
  priority_levels?: number; // uint64
  default_priority_level?: number; // uint64
  default_queue_policy?: ModelQueuePolicy;
  /** map<uint64, ModelQueuePolicy>: key is the priority level as a decimal string ('1', '2' ...) */
  priority_queue_policy?: Record<string, ModelQueuePolicy>;
}

// ----------------------------------------------------------------------------------- sequence batching

export interface ModelSequenceBatchingControl {
  kind?: SequenceControlKind;
  int32_false_true?: number[]; // int32
  fp32_false_true?: number[]; // float
  bool_false_true?: boolean[];
  data_type?: DataType;
}

export interface ModelSequenceBatchingControlInput {
  name?: string;
  control?: ModelSequenceBatchingControl[];
}

/** oneof state_data: zero_data | data_file */
export interface ModelSequenceBatchingInitialState {
  data_type?: DataType;
  dims?: number[]; // int64
  zero_data?: boolean;
  data_file?: string;
  name?: string;
}

export interface ModelSequenceBatchingState {
  input_name?: string;
  output_name?: string;
  data_type?: DataType;
  dims?: number[]; // int64
  initial_state?: ModelSequenceBatchingInitialState[];
  use_same_buffer_for_input_output?: boolean;
  use_growable_memory?: boolean;
}

export interface ModelSequenceBatchingStrategyDirect {
  max_queue_delay_microseconds?: number; // uint64
  minimum_slot_utilization?: number; // float
}

export interface ModelSequenceBatchingStrategyOldest {
  max_candidate_sequences?: number; // int32
  preferred_batch_size?: number[]; // int32
  max_queue_delay_microseconds?: number; // uint64
  preserve_ordering?: boolean;
}

/** oneof strategy_choice: direct | oldest */
export interface ModelSequenceBatching {
  direct?: ModelSequenceBatchingStrategyDirect;
  oldest?: ModelSequenceBatchingStrategyOldest;
  max_sequence_idle_microseconds?: number; // uint64
  control_input?: ModelSequenceBatchingControlInput[];
  state?: ModelSequenceBatchingState[];
  iterative_sequence?: boolean;
}

// ------------------------------------------------------------------------------------------ ensembles

export interface ModelEnsemblingStep {
  model_name?: string;
  model_version?: number; // int64, -1 = latest
  /** model input name -> ensemble tensor name */
  input_map?: Record<string, string>;
  /** model output name -> ensemble tensor name */
  output_map?: Record<string, string>;
  model_namespace?: string;
}

export interface ModelEnsembling {
  step?: ModelEnsemblingStep[];
  max_inflight_responses?: number; // uint32
}

// ------------------------------------------------------------------------------------- misc messages

export interface ModelParameter {
  string_value?: string;
}

/** oneof input_data_type: zero_data | random_data | input_data_file */
export interface ModelWarmupInput {
  data_type?: DataType;
  dims?: number[]; // int64
  zero_data?: boolean;
  random_data?: boolean;
  input_data_file?: string;
}

export interface ModelWarmup {
  name?: string;
  batch_size?: number; // uint32
  inputs?: Record<string, ModelWarmupInput>;
  count?: number; // uint32
}

export interface ModelOperations {
  op_library_filename?: string[];
}

export interface ModelTransactionPolicy {
  decoupled?: boolean;
}

export interface ModelRepositoryAgentsAgent {
  name?: string;
  parameters?: Record<string, string>;
}

export interface ModelRepositoryAgents {
  agents?: ModelRepositoryAgentsAgent[];
}

export interface ModelResponseCache {
  enable?: boolean;
}

export interface ModelMetricsMetricControlMetricIdentifier {
  family?: string;
}

export interface ModelMetricsMetricControlHistogramOptions {
  buckets?: number[]; // double
}

/** oneof metric_options: histogram_options */
export interface ModelMetricsMetricControl {
  metric_identifier?: ModelMetricsMetricControlMetricIdentifier;
  histogram_options?: ModelMetricsMetricControlHistogramOptions;
}

export interface ModelMetrics {
  metric_control?: ModelMetricsMetricControl[];
}

// -------------------------------------------------------------------------------------------- the root

/** oneof scheduling_choice: dynamic_batching | sequence_batching | ensemble_scheduling */
export interface ModelConfig {
  name?: string;
  platform?: string;
  backend?: string;
  runtime?: string;
  version_policy?: ModelVersionPolicy;
  max_batch_size?: number; // int32
  input?: ModelInput[];
  output?: ModelOutput[];
  batch_input?: BatchInput[];
  batch_output?: BatchOutput[];
  optimization?: ModelOptimizationPolicy;
  dynamic_batching?: ModelDynamicBatching;
  sequence_batching?: ModelSequenceBatching;
  ensemble_scheduling?: ModelEnsembling;
  instance_group?: ModelInstanceGroup[];
  default_model_filename?: string;
  cc_model_filenames?: Record<string, string>;
  metric_tags?: Record<string, string>;
  parameters?: Record<string, ModelParameter>;
  model_warmup?: ModelWarmup[];
  model_operations?: ModelOperations;
  model_transaction_policy?: ModelTransactionPolicy;
  model_repository_agents?: ModelRepositoryAgents;
  response_cache?: ModelResponseCache;
  model_metrics?: ModelMetrics;
}
