/**
 * The schema table the text-format parser and the printer walk: every message of model_config.proto with
 * its fields, their proto types, repeated/map/oneof, in proto declaration order (the printer keeps it).
 *
 * `MessageSchema<T>` requires exactly the keys of the TypeScript interface, so types.ts and this table
 * cannot drift apart without `tsc` failing.
 */
import type * as T from './types';

export type ScalarType = 'string' | 'bool' | 'int32' | 'int64' | 'uint32' | 'uint64' | 'float' | 'double';

export type ValueSpec =
  | { kind: 'scalar'; type: ScalarType }
  | { kind: 'enum'; name: string; values: readonly string[] } // values[i] has proto number i
  | { kind: 'message'; message: MessageName };

export type FieldSpec = ValueSpec & {
  repeated?: boolean;
  /** map<key, value>: parsed as repeated { key: .. value: .. } entries, stored as Record<string, value> */
  mapKey?: 'string' | 'uint64';
  oneof?: string;
};

export type MessageSchema<M> = {
  /** fully qualified proto name, used in parser errors as protobuf words them */
  fullName: string;
  fields: { readonly [K in keyof Required<M>]-?: FieldSpec };
};

const scalar = (type: ScalarType): FieldSpec => ({ kind: 'scalar', type });
const str = scalar('string');
const bool = scalar('bool');
const i32 = scalar('int32');
const i64 = scalar('int64');
const u32 = scalar('uint32');
const u64 = scalar('uint64');
const f32 = scalar('float');
const f64 = scalar('double');
const enm = (name: string, values: readonly string[]): FieldSpec => ({ kind: 'enum', name, values });
const msg = (message: MessageName): FieldSpec => ({ kind: 'message', message });
const rep = (f: FieldSpec): FieldSpec => ({ ...f, repeated: true });
const map = (mapKey: 'string' | 'uint64', value: FieldSpec): FieldSpec => ({ ...value, mapKey });
const oneof = (group: string, f: FieldSpec): FieldSpec => ({ ...f, oneof: group });

export const DATA_TYPE_VALUES = [
  'TYPE_INVALID', 'TYPE_BOOL', 'TYPE_UINT8', 'TYPE_UINT16', 'TYPE_UINT32', 'TYPE_UINT64', 'TYPE_INT8',
  'TYPE_INT16', 'TYPE_INT32', 'TYPE_INT64', 'TYPE_FP16', 'TYPE_FP32', 'TYPE_FP64', 'TYPE_STRING', 'TYPE_BF16',
] as const satisfies readonly T.DataType[];
const dataType = enm('inference.DataType', DATA_TYPE_VALUES);

const stringMap = map('string', str);

// Every schema is declared with its interface so tsc checks field names against types.ts.
const ModelRateLimiterResource: MessageSchema<T.ModelRateLimiterResource> = {
  fullName: 'inference.ModelRateLimiter.Resource',
  fields: { name: str, global: bool, count: u32 },
};
const ModelRateLimiter: MessageSchema<T.ModelRateLimiter> = {
  fullName: 'inference.ModelRateLimiter',
  fields: { resources: rep(msg('ModelRateLimiterResource')), priority: u32 },
};
const ModelInstanceGroupSecondaryDevice: MessageSchema<T.ModelInstanceGroupSecondaryDevice> = {
  fullName: 'inference.ModelInstanceGroup.SecondaryDevice',
  fields: { kind: enm('inference.ModelInstanceGroup.SecondaryDevice.SecondaryDeviceKind', ['KIND_NVDLA']), device_id: i64 },
};
const ModelInstanceGroup: MessageSchema<T.ModelInstanceGroup> = {
  fullName: 'inference.ModelInstanceGroup',
  fields: {
    name: str,
    kind: enm('inference.ModelInstanceGroup.Kind', ['KIND_AUTO', 'KIND_GPU', 'KIND_CPU', 'KIND_MODEL']),
    count: i32,
    rate_limiter: msg('ModelRateLimiter'),
    gpus: rep(i32),
    secondary_devices: rep(msg('ModelInstanceGroupSecondaryDevice')),
    profile: rep(str),
    passive: bool,
    host_policy: str,
  },
};
const ModelTensorReshape: MessageSchema<T.ModelTensorReshape> = {
  fullName: 'inference.ModelTensorReshape',
  fields: { shape: rep(i64) },
};
const ModelInput: MessageSchema<T.ModelInput> = {
  fullName: 'inference.ModelInput',
  fields: {
    name: str,
    data_type: dataType,
    format: enm('inference.ModelInput.Format', ['FORMAT_NONE', 'FORMAT_NHWC', 'FORMAT_NCHW']),
    dims: rep(i64),
    reshape: msg('ModelTensorReshape'),
    is_shape_tensor: bool,
    allow_ragged_batch: bool,
    optional: bool,
    is_non_linear_format_io: bool,
  },
};
const ModelOutput: MessageSchema<T.ModelOutput> = {
  fullName: 'inference.ModelOutput',
  fields: {
    name: str,
    data_type: dataType,
    dims: rep(i64),
    reshape: msg('ModelTensorReshape'),
    label_filename: str,
    is_shape_tensor: bool,
    is_non_linear_format_io: bool,
  },
};
const BatchInput: MessageSchema<T.BatchInput> = {
  fullName: 'inference.BatchInput',
  fields: {
    kind: enm('inference.BatchInput.Kind', [
      'BATCH_ELEMENT_COUNT', 'BATCH_ACCUMULATED_ELEMENT_COUNT', 'BATCH_ACCUMULATED_ELEMENT_COUNT_WITH_ZERO',
      'BATCH_MAX_ELEMENT_COUNT_AS_SHAPE', 'BATCH_ITEM_SHAPE', 'BATCH_ITEM_SHAPE_FLATTEN',
    ]),
    target_name: rep(str),
    data_type: dataType,
    source_input: rep(str),
  },
};
const BatchOutput: MessageSchema<T.BatchOutput> = {
  fullName: 'inference.BatchOutput',
  fields: {
    target_name: rep(str),
    kind: enm('inference.BatchOutput.Kind', ['BATCH_SCATTER_WITH_INPUT_SHAPE']),
    source_input: rep(str),
  },
};
const ModelVersionPolicyLatest: MessageSchema<T.ModelVersionPolicyLatest> = {
  fullName: 'inference.ModelVersionPolicy.Latest',
  fields: { num_versions: u32 },
};
const ModelVersionPolicyAll: MessageSchema<T.ModelVersionPolicyAll> = {
  fullName: 'inference.ModelVersionPolicy.All',
  fields: {},
};
const ModelVersionPolicySpecific: MessageSchema<T.ModelVersionPolicySpecific> = {
  fullName: 'inference.ModelVersionPolicy.Specific',
  fields: { versions: rep(i64) },
};
const ModelVersionPolicy: MessageSchema<T.ModelVersionPolicy> = {
  fullName: 'inference.ModelVersionPolicy',
  fields: {
    latest: oneof('policy_choice', msg('ModelVersionPolicyLatest')),
    all: oneof('policy_choice', msg('ModelVersionPolicyAll')),
    specific: oneof('policy_choice', msg('ModelVersionPolicySpecific')),
  },
};
const Graph: MessageSchema<T.ModelOptimizationPolicyGraph> = {
  fullName: 'inference.ModelOptimizationPolicy.Graph',
  fields: { level: i32 },
};
const GraphSpecShape: MessageSchema<T.ModelOptimizationPolicyCudaGraphSpecShape> = {
  fullName: 'inference.ModelOptimizationPolicy.Cuda.GraphSpec.Shape',
  fields: { dim: rep(i64) },
};
const GraphSpecLowerBound: MessageSchema<T.ModelOptimizationPolicyCudaGraphSpecLowerBound> = {
  fullName: 'inference.ModelOptimizationPolicy.Cuda.GraphSpec.LowerBound',
  fields: { batch_size: i32, input: map('string', msg('GraphSpecShape')) },
};
const GraphSpec: MessageSchema<T.ModelOptimizationPolicyCudaGraphSpec> = {
  fullName: 'inference.ModelOptimizationPolicy.Cuda.GraphSpec',
  fields: {
    batch_size: i32,
    input: map('string', msg('GraphSpecShape')),
    graph_lower_bound: msg('GraphSpecLowerBound'),
  },
};
const Cuda: MessageSchema<T.ModelOptimizationPolicyCuda> = {
  fullName: 'inference.ModelOptimizationPolicy.Cuda',
  fields: { graphs: bool, busy_wait_events: bool, graph_spec: rep(msg('GraphSpec')), output_copy_stream: bool },
};
const Accelerator: MessageSchema<T.ModelOptimizationPolicyExecutionAcceleratorsAccelerator> = {
  fullName: 'inference.ModelOptimizationPolicy.ExecutionAccelerators.Accelerator',
  fields: { name: str, parameters: stringMap },
};
const ExecutionAccelerators: MessageSchema<T.ModelOptimizationPolicyExecutionAccelerators> = {
  fullName: 'inference.ModelOptimizationPolicy.ExecutionAccelerators',
  fields: {
    gpu_execution_accelerator: rep(msg('Accelerator')),
    cpu_execution_accelerator: rep(msg('Accelerator')),
  },
};
const PinnedMemoryBuffer: MessageSchema<T.ModelOptimizationPolicyPinnedMemoryBuffer> = {
  fullName: 'inference.ModelOptimizationPolicy.PinnedMemoryBuffer',
  fields: { enable: bool },
};
const ModelOptimizationPolicy: MessageSchema<T.ModelOptimizationPolicy> = {
  fullName: 'inference.ModelOptimizationPolicy',
  fields: {
    graph: msg('Graph'),
    priority: enm('inference.ModelOptimizationPolicy.ModelPriority', ['PRIORITY_DEFAULT', 'PRIORITY_MAX', 'PRIORITY_MIN']),
    cuda: msg('Cuda'),
    execution_accelerators: msg('ExecutionAccelerators'),
    input_pinned_memory: msg('PinnedMemoryBuffer'),
    output_pinned_memory: msg('PinnedMemoryBuffer'),
    gather_kernel_buffer_threshold: u32,
    eager_batching: bool,
  },
};
const ModelQueuePolicy: MessageSchema<T.ModelQueuePolicy> = {
  fullName: 'inference.ModelQueuePolicy',
  fields: {
    timeout_action: enm('inference.ModelQueuePolicy.TimeoutAction', ['REJECT', 'DELAY']),
    default_timeout_microseconds: u64,
    allow_timeout_override: bool,
    max_queue_size: u32,
  },
};
const ModelDynamicBatching: MessageSchema<T.ModelDynamicBatching> = {
  fullName: 'inference.ModelDynamicBatching',
  fields: {
    preferred_batch_size: rep(i32),
    max_queue_delay_microseconds: u64,
    preserve_ordering: bool,
    priority_levels: u64,
    default_priority_level: u64,
    default_queue_policy: msg('ModelQueuePolicy'),
    priority_queue_policy: map('uint64', msg('ModelQueuePolicy')),
  },
};
const SequenceControl: MessageSchema<T.ModelSequenceBatchingControl> = {
  fullName: 'inference.ModelSequenceBatching.Control',
  fields: {
    kind: enm('inference.ModelSequenceBatching.Control.Kind', [
      'CONTROL_SEQUENCE_START', 'CONTROL_SEQUENCE_READY', 'CONTROL_SEQUENCE_END', 'CONTROL_SEQUENCE_CORRID',
    ]),
    int32_false_true: rep(i32),
    fp32_false_true: rep(f32),
    bool_false_true: rep(bool),
    data_type: dataType,
  },
};
const SequenceControlInput: MessageSchema<T.ModelSequenceBatchingControlInput> = {
  fullName: 'inference.ModelSequenceBatching.ControlInput',
  fields: { name: str, control: rep(msg('SequenceControl')) },
};
const SequenceInitialState: MessageSchema<T.ModelSequenceBatchingInitialState> = {
  fullName: 'inference.ModelSequenceBatching.InitialState',
  fields: {
    data_type: dataType,
    dims: rep(i64),
    zero_data: oneof('state_data', bool),
    data_file: oneof('state_data', str),
    name: str,
  },
};
const SequenceState: MessageSchema<T.ModelSequenceBatchingState> = {
  fullName: 'inference.ModelSequenceBatching.State',
  fields: {
    input_name: str,
    output_name: str,
    data_type: dataType,
    dims: rep(i64),
    initial_state: rep(msg('SequenceInitialState')),
    use_same_buffer_for_input_output: bool,
    use_growable_memory: bool,
  },
};
const StrategyDirect: MessageSchema<T.ModelSequenceBatchingStrategyDirect> = {
  fullName: 'inference.ModelSequenceBatching.StrategyDirect',
  fields: { max_queue_delay_microseconds: u64, minimum_slot_utilization: f32 },
};
const StrategyOldest: MessageSchema<T.ModelSequenceBatchingStrategyOldest> = {
  fullName: 'inference.ModelSequenceBatching.StrategyOldest',
  fields: {
    max_candidate_sequences: i32,
    preferred_batch_size: rep(i32),
    max_queue_delay_microseconds: u64,
    preserve_ordering: bool,
  },
};
const ModelSequenceBatching: MessageSchema<T.ModelSequenceBatching> = {
  fullName: 'inference.ModelSequenceBatching',
  fields: {
    direct: oneof('strategy_choice', msg('StrategyDirect')),
    oldest: oneof('strategy_choice', msg('StrategyOldest')),
    max_sequence_idle_microseconds: u64,
    control_input: rep(msg('SequenceControlInput')),
    state: rep(msg('SequenceState')),
    iterative_sequence: bool,
  },
};
const EnsembleStep: MessageSchema<T.ModelEnsemblingStep> = {
  fullName: 'inference.ModelEnsembling.Step',
  fields: { model_name: str, model_version: i64, input_map: stringMap, output_map: stringMap, model_namespace: str },
};
const ModelEnsembling: MessageSchema<T.ModelEnsembling> = {
  fullName: 'inference.ModelEnsembling',
  fields: { step: rep(msg('EnsembleStep')), max_inflight_responses: u32 },
};
const ModelParameter: MessageSchema<T.ModelParameter> = {
  fullName: 'inference.ModelParameter',
  fields: { string_value: str },
};
const WarmupInput: MessageSchema<T.ModelWarmupInput> = {
  fullName: 'inference.ModelWarmup.Input',
  fields: {
    data_type: dataType,
    dims: rep(i64),
    zero_data: oneof('input_data_type', bool),
    random_data: oneof('input_data_type', bool),
    input_data_file: oneof('input_data_type', str),
  },
};
const ModelWarmup: MessageSchema<T.ModelWarmup> = {
  fullName: 'inference.ModelWarmup',
  fields: { name: str, batch_size: u32, inputs: map('string', msg('WarmupInput')), count: u32 },
};
const ModelOperations: MessageSchema<T.ModelOperations> = {
  fullName: 'inference.ModelOperations',
  fields: { op_library_filename: rep(str) },
};
const ModelTransactionPolicy: MessageSchema<T.ModelTransactionPolicy> = {
  fullName: 'inference.ModelTransactionPolicy',
  fields: { decoupled: bool },
};
const Agent: MessageSchema<T.ModelRepositoryAgentsAgent> = {
  fullName: 'inference.ModelRepositoryAgents.Agent',
  fields: { name: str, parameters: stringMap },
};
const ModelRepositoryAgents: MessageSchema<T.ModelRepositoryAgents> = {
  fullName: 'inference.ModelRepositoryAgents',
  fields: { agents: rep(msg('Agent')) },
};
const ModelResponseCache: MessageSchema<T.ModelResponseCache> = {
  fullName: 'inference.ModelResponseCache',
  fields: { enable: bool },
};
const MetricIdentifier: MessageSchema<T.ModelMetricsMetricControlMetricIdentifier> = {
  fullName: 'inference.ModelMetrics.MetricControl.MetricIdentifier',
  fields: { family: str },
};
const HistogramOptions: MessageSchema<T.ModelMetricsMetricControlHistogramOptions> = {
  fullName: 'inference.ModelMetrics.MetricControl.HistogramOptions',
  fields: { buckets: rep(f64) },
};
const MetricControl: MessageSchema<T.ModelMetricsMetricControl> = {
  fullName: 'inference.ModelMetrics.MetricControl',
  fields: {
    metric_identifier: msg('MetricIdentifier'),
    histogram_options: oneof('metric_options', msg('HistogramOptions')),
  },
};
const ModelMetrics: MessageSchema<T.ModelMetrics> = {
  fullName: 'inference.ModelMetrics',
  fields: { metric_control: rep(msg('MetricControl')) },
};
const ModelConfig: MessageSchema<T.ModelConfig> = {
  fullName: 'inference.ModelConfig',
  fields: {
    name: str,
    platform: str,
    backend: str,
    runtime: str,
    version_policy: msg('ModelVersionPolicy'),
    max_batch_size: i32,
    input: rep(msg('ModelInput')),
    output: rep(msg('ModelOutput')),
    batch_input: rep(msg('BatchInput')),
    batch_output: rep(msg('BatchOutput')),
    optimization: msg('ModelOptimizationPolicy'),
    dynamic_batching: oneof('scheduling_choice', msg('ModelDynamicBatching')),
    sequence_batching: oneof('scheduling_choice', msg('ModelSequenceBatching')),
    ensemble_scheduling: oneof('scheduling_choice', msg('ModelEnsembling')),
    instance_group: rep(msg('ModelInstanceGroup')),
    default_model_filename: str,
    cc_model_filenames: stringMap,
    metric_tags: stringMap,
    parameters: map('string', msg('ModelParameter')),
    model_warmup: rep(msg('ModelWarmup')),
    model_operations: msg('ModelOperations'),
    model_transaction_policy: msg('ModelTransactionPolicy'),
    model_repository_agents: msg('ModelRepositoryAgents'),
    response_cache: msg('ModelResponseCache'),
    model_metrics: msg('ModelMetrics'),
  },
};

export const SCHEMAS = {
  ModelConfig, ModelRateLimiterResource, ModelRateLimiter, ModelInstanceGroupSecondaryDevice, ModelInstanceGroup,
  ModelTensorReshape, ModelInput, ModelOutput, BatchInput, BatchOutput, ModelVersionPolicyLatest,
  ModelVersionPolicyAll, ModelVersionPolicySpecific, ModelVersionPolicy, Graph, GraphSpecShape,
  GraphSpecLowerBound, GraphSpec, Cuda, Accelerator, ExecutionAccelerators, PinnedMemoryBuffer,
  ModelOptimizationPolicy, ModelQueuePolicy, ModelDynamicBatching, SequenceControl, SequenceControlInput,
  SequenceInitialState, SequenceState, StrategyDirect, StrategyOldest, ModelSequenceBatching, EnsembleStep,
  ModelEnsembling, ModelParameter, WarmupInput, ModelWarmup, ModelOperations, ModelTransactionPolicy, Agent,
  ModelRepositoryAgents, ModelResponseCache, MetricIdentifier, HistogramOptions, MetricControl, ModelMetrics,
} as const;

export type MessageName = keyof typeof SCHEMAS;

/** The schema of a message, with its fields as a plain string-keyed table for generic walkers. */
export function schemaOf(name: MessageName): { fullName: string; fields: Readonly<Record<string, FieldSpec>> } {
  return SCHEMAS[name] as { fullName: string; fields: Readonly<Record<string, FieldSpec>> };
}
