/**
 * THE declaration of ModelConfig in TypeScript: every message of Triton's model_config.proto with its
 * fields, their proto types, repeated/map/oneof, in proto declaration order (the printer keeps it).
 *
 * Everything else derives from this table: the text-format parser, the JSON reader, the printer and the
 * TypeScript types (types.ts computes each interface from its entry here, so a field cannot exist in one
 * and not the other). test/config/model-config-proto.test.ts reads the gRPC `model_config.proto` the
 * server answers with and fails when it and this table disagree on any message, field, type,
 * repeated-ness, map, oneof or enum value.
 */

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

// The helpers keep literal types (`const` type parameters) so types.ts can compute the interfaces.
const scalar = <const S extends ScalarType>(type: S) => ({ kind: 'scalar', type }) as const;
const str = scalar('string');
const bool = scalar('bool');
const i32 = scalar('int32');
const i64 = scalar('int64');
const u32 = scalar('uint32');
const u64 = scalar('uint64');
const f32 = scalar('float');
const f64 = scalar('double');
const enm = <const V extends readonly string[]>(name: string, values: V) => ({ kind: 'enum', name, values }) as const;
/** A message field; the name is checked against SCHEMAS by `checked` below. */
const msg = <const N extends string>(message: N) => ({ kind: 'message', message }) as const;
const rep = <const F extends object>(f: F) => ({ ...f, repeated: true }) as const;
const map = <const K extends 'string' | 'uint64', const F extends object>(mapKey: K, value: F) => ({ ...value, mapKey }) as const;
const oneof = <const F extends object>(group: string, f: F) => ({ ...f, oneof: group }) as const;

export const DATA_TYPE_VALUES = [
  'TYPE_INVALID', 'TYPE_BOOL', 'TYPE_UINT8', 'TYPE_UINT16', 'TYPE_UINT32', 'TYPE_UINT64', 'TYPE_INT8',
  'TYPE_INT16', 'TYPE_INT32', 'TYPE_INT64', 'TYPE_FP16', 'TYPE_FP32', 'TYPE_FP64', 'TYPE_STRING', 'TYPE_BF16',
] as const;
const dataType = enm('inference.DataType', DATA_TYPE_VALUES);

const stringMap = map('string', str);

const ModelRateLimiterResource = {
  fullName: 'inference.ModelRateLimiter.Resource',
  fields: { name: str, global: bool, count: u32 },
};
const ModelRateLimiter = {
  fullName: 'inference.ModelRateLimiter',
  fields: { resources: rep(msg('ModelRateLimiterResource')), priority: u32 },
};
const ModelInstanceGroupSecondaryDevice = {
  fullName: 'inference.ModelInstanceGroup.SecondaryDevice',
  fields: { kind: enm('inference.ModelInstanceGroup.SecondaryDevice.SecondaryDeviceKind', ['KIND_NVDLA']), device_id: i64 },
};
const ModelInstanceGroup = {
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
const ModelTensorReshape = {
  fullName: 'inference.ModelTensorReshape',
  fields: { shape: rep(i64) },
};
const ModelInput = {
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
const ModelOutput = {
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
const BatchInput = {
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
const BatchOutput = {
  fullName: 'inference.BatchOutput',
  fields: {
    target_name: rep(str),
    kind: enm('inference.BatchOutput.Kind', ['BATCH_SCATTER_WITH_INPUT_SHAPE']),
    source_input: rep(str),
  },
};
const ModelVersionPolicyLatest = {
  fullName: 'inference.ModelVersionPolicy.Latest',
  fields: { num_versions: u32 },
};
const ModelVersionPolicyAll = {
  fullName: 'inference.ModelVersionPolicy.All',
  fields: {},
};
const ModelVersionPolicySpecific = {
  fullName: 'inference.ModelVersionPolicy.Specific',
  fields: { versions: rep(i64) },
};
const ModelVersionPolicy = {
  fullName: 'inference.ModelVersionPolicy',
  fields: {
    latest: oneof('policy_choice', msg('ModelVersionPolicyLatest')),
    all: oneof('policy_choice', msg('ModelVersionPolicyAll')),
    specific: oneof('policy_choice', msg('ModelVersionPolicySpecific')),
  },
};
const Graph = {
  fullName: 'inference.ModelOptimizationPolicy.Graph',
  fields: { level: i32 },
};
const GraphSpecShape = {
  fullName: 'inference.ModelOptimizationPolicy.Cuda.GraphSpec.Shape',
  fields: { dim: rep(i64) },
};
const GraphSpecLowerBound = {
  fullName: 'inference.ModelOptimizationPolicy.Cuda.GraphSpec.LowerBound',
  fields: { batch_size: i32, input: map('string', msg('GraphSpecShape')) },
};
const GraphSpec = {
  fullName: 'inference.ModelOptimizationPolicy.Cuda.GraphSpec',
  fields: {
    batch_size: i32,
    input: map('string', msg('GraphSpecShape')),
    graph_lower_bound: msg('GraphSpecLowerBound'),
  },
};
const Cuda = {
  fullName: 'inference.ModelOptimizationPolicy.Cuda',
  fields: { graphs: bool, busy_wait_events: bool, graph_spec: rep(msg('GraphSpec')), output_copy_stream: bool },
};
const Accelerator = {
  fullName: 'inference.ModelOptimizationPolicy.ExecutionAccelerators.Accelerator',
  fields: { name: str, parameters: stringMap },
};
const ExecutionAccelerators = {
  fullName: 'inference.ModelOptimizationPolicy.ExecutionAccelerators',
  fields: {
    gpu_execution_accelerator: rep(msg('Accelerator')),
    cpu_execution_accelerator: rep(msg('Accelerator')),
  },
};
const PinnedMemoryBuffer = {
  fullName: 'inference.ModelOptimizationPolicy.PinnedMemoryBuffer',
  fields: { enable: bool },
};
const ModelOptimizationPolicy = {
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
const ModelQueuePolicy = {
  fullName: 'inference.ModelQueuePolicy',
  fields: {
    timeout_action: enm('inference.ModelQueuePolicy.TimeoutAction', ['REJECT', 'DELAY']),
    default_timeout_microseconds: u64,
    allow_timeout_override: bool,
    max_queue_size: u32,
  },
};
const ModelDynamicBatching = {
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
const SequenceControl = {
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
const SequenceControlInput = {
  fullName: 'inference.ModelSequenceBatching.ControlInput',
  fields: { name: str, control: rep(msg('SequenceControl')) },
};
const SequenceInitialState = {
  fullName: 'inference.ModelSequenceBatching.InitialState',
  fields: {
    data_type: dataType,
    dims: rep(i64),
    zero_data: oneof('state_data', bool),
    data_file: oneof('state_data', str),
    name: str,
  },
};
const SequenceState = {
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
const StrategyDirect = {
  fullName: 'inference.ModelSequenceBatching.StrategyDirect',
  fields: { max_queue_delay_microseconds: u64, minimum_slot_utilization: f32 },
};
const StrategyOldest = {
  fullName: 'inference.ModelSequenceBatching.StrategyOldest',
  fields: {
    max_candidate_sequences: i32,
    preferred_batch_size: rep(i32),
    max_queue_delay_microseconds: u64,
    preserve_ordering: bool,
  },
};
const ModelSequenceBatching = {
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
const EnsembleStep = {
  fullName: 'inference.ModelEnsembling.Step',
  fields: { model_name: str, model_version: i64, input_map: stringMap, output_map: stringMap, model_namespace: str },
};
const ModelEnsembling = {
  fullName: 'inference.ModelEnsembling',
  fields: { step: rep(msg('EnsembleStep')), max_inflight_requests: u32 },
};
const ModelParameter = {
  fullName: 'inference.ModelParameter',
  fields: { string_value: str },
};
const WarmupInput = {
  fullName: 'inference.ModelWarmup.Input',
  fields: {
    data_type: dataType,
    dims: rep(i64),
    zero_data: oneof('input_data_type', bool),
    random_data: oneof('input_data_type', bool),
    input_data_file: oneof('input_data_type', str),
  },
};
const ModelWarmup = {
  fullName: 'inference.ModelWarmup',
  fields: { name: str, batch_size: u32, inputs: map('string', msg('WarmupInput')), count: u32 },
};
const ModelOperations = {
  fullName: 'inference.ModelOperations',
  fields: { op_library_filename: rep(str) },
};
const ModelTransactionPolicy = {
  fullName: 'inference.ModelTransactionPolicy',
  fields: { decoupled: bool },
};
const Agent = {
  fullName: 'inference.ModelRepositoryAgents.Agent',
  fields: { name: str, parameters: stringMap },
};
const ModelRepositoryAgents = {
  fullName: 'inference.ModelRepositoryAgents',
  fields: { agents: rep(msg('Agent')) },
};
const ModelResponseCache = {
  fullName: 'inference.ModelResponseCache',
  fields: { enable: bool },
};
const MetricIdentifier = {
  fullName: 'inference.ModelMetrics.MetricControl.MetricIdentifier',
  fields: { family: str },
};
const HistogramOptions = {
  fullName: 'inference.ModelMetrics.MetricControl.HistogramOptions',
  fields: { buckets: rep(f64) },
};
const MetricControl = {
  fullName: 'inference.ModelMetrics.MetricControl',
  fields: {
    metric_identifier: msg('MetricIdentifier'),
    histogram_options: oneof('metric_options', msg('HistogramOptions')),
  },
};
const ModelMetrics = {
  fullName: 'inference.ModelMetrics',
  fields: { metric_control: rep(msg('MetricControl')) },
};
const ModelConfig = {
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

// Every `msg(...)` names a message of the table and every field is a FieldSpec: tsc fails otherwise.
const checked: Readonly<Record<MessageName, { fullName: string; fields: Readonly<Record<string, FieldSpec>> }>> = SCHEMAS;

/** The schema of a message, with its fields as a plain string-keyed table for generic walkers. */
export function schemaOf(name: MessageName): { fullName: string; fields: Readonly<Record<string, FieldSpec>> } {
  return checked[name];
}
