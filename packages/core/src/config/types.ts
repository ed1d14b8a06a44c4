/**
 * ModelConfig: Triton's model_config.proto (triton-inference-server/common) as TypeScript types, computed
 * from the one schema table (./schema.ts), so the parser, the printer, the JSON reader and these types
 * cannot disagree on a message, a field, its type or an enum value.
 *
 * Conventions, chosen so that `JSON.stringify(config)` equals Triton's `GET /v2/models/{m}/config`:
 * - field names exactly as in the proto (snake_case);
 * - enums as their string names ('TYPE_FP32', 'KIND_CPU', 'REJECT' ...);
 * - int64/uint64/float/double as JS numbers (Triton's JSON writer also turns them back into numbers);
 * - proto maps as Record<string, T> (map<uint64, ...> keys are the decimal level, e.g. '1');
 * - every field optional, as in proto3: absent = the proto default (0, '', false, empty, unset message).
 *   normalizeModelConfig() fills the defaults Triton fills. A oneof's members are plain optional fields;
 *   the parser refuses two of one oneof.
 */
import type { DATA_TYPE_VALUES, MessageName, SCHEMAS, ScalarType } from './schema';

type Schemas = typeof SCHEMAS;
type Fields<N extends MessageName> = Schemas[N]['fields'];

type ScalarValue<S extends ScalarType> = S extends 'string' ? string : S extends 'bool' ? boolean : number;
type ElementOf<F> =
  F extends { kind: 'message'; message: infer N extends MessageName } ? Message<N>
  : F extends { kind: 'enum'; values: readonly (infer V)[] } ? V
  : F extends { kind: 'scalar'; type: infer S extends ScalarType } ? ScalarValue<S>
  : never;
type ValueOf<F> =
  F extends { mapKey: string } ? Record<string, ElementOf<F>>
  : F extends { repeated: true } ? ElementOf<F>[]
  : ElementOf<F>;

/** The TypeScript shape of a message of the schema table. */
export type Message<N extends MessageName> = { -readonly [K in keyof Fields<N>]?: ValueOf<Fields<N>[K]> };

// ---------------------------------------------------------------------------------------------- enums

type EnumOf<N extends MessageName, K extends keyof Fields<N>> = ElementOf<Fields<N>[K]>;

export type DataType = (typeof DATA_TYPE_VALUES)[number];
export type InstanceGroupKind = EnumOf<'ModelInstanceGroup', 'kind'>;
export type SecondaryDeviceKind = EnumOf<'ModelInstanceGroupSecondaryDevice', 'kind'>;
export type InputFormat = EnumOf<'ModelInput', 'format'>;
export type BatchInputKind = EnumOf<'BatchInput', 'kind'>;
export type BatchOutputKind = EnumOf<'BatchOutput', 'kind'>;
export type ModelPriority = EnumOf<'ModelOptimizationPolicy', 'priority'>;
export type TimeoutAction = EnumOf<'ModelQueuePolicy', 'timeout_action'>;
export type SequenceControlKind = EnumOf<'SequenceControl', 'kind'>;

// ------------------------------------------------------------------------------------------- messages
// Named as the proto nests them (ModelOptimizationPolicy.Cuda.GraphSpec -> ModelOptimizationPolicyCudaGraphSpec).

export type ModelRateLimiterResource = Message<'ModelRateLimiterResource'>;
export type ModelRateLimiter = Message<'ModelRateLimiter'>;
export type ModelInstanceGroupSecondaryDevice = Message<'ModelInstanceGroupSecondaryDevice'>;
export type ModelInstanceGroup = Message<'ModelInstanceGroup'>;
export type ModelTensorReshape = Message<'ModelTensorReshape'>;
export type ModelInput = Message<'ModelInput'>;
export type ModelOutput = Message<'ModelOutput'>;
export type BatchInput = Message<'BatchInput'>;
export type BatchOutput = Message<'BatchOutput'>;
export type ModelVersionPolicyLatest = Message<'ModelVersionPolicyLatest'>;
export type ModelVersionPolicyAll = Message<'ModelVersionPolicyAll'>;
export type ModelVersionPolicySpecific = Message<'ModelVersionPolicySpecific'>;
/** oneof policy_choice: at most one of latest / all / specific */
export type ModelVersionPolicy = Message<'ModelVersionPolicy'>;
export type ModelOptimizationPolicyGraph = Message<'Graph'>;
export type ModelOptimizationPolicyCudaGraphSpecShape = Message<'GraphSpecShape'>;
export type ModelOptimizationPolicyCudaGraphSpecLowerBound = Message<'GraphSpecLowerBound'>;
export type ModelOptimizationPolicyCudaGraphSpec = Message<'GraphSpec'>;
export type ModelOptimizationPolicyCuda = Message<'Cuda'>;
export type ModelOptimizationPolicyExecutionAcceleratorsAccelerator = Message<'Accelerator'>;
export type ModelOptimizationPolicyExecutionAccelerators = Message<'ExecutionAccelerators'>;
export type ModelOptimizationPolicyPinnedMemoryBuffer = Message<'PinnedMemoryBuffer'>;
export type ModelOptimizationPolicy = Message<'ModelOptimizationPolicy'>;
export type ModelQueuePolicy = Message<'ModelQueuePolicy'>;
/** priority_queue_policy is map<uint64, ModelQueuePolicy>: keys are the priority level as a decimal string */
export type ModelDynamicBatching = Message<'ModelDynamicBatching'>;
export type ModelSequenceBatchingControl = Message<'SequenceControl'>;
export type ModelSequenceBatchingControlInput = Message<'SequenceControlInput'>;
/** oneof state_data: zero_data | data_file */
export type ModelSequenceBatchingInitialState = Message<'SequenceInitialState'>;
export type ModelSequenceBatchingState = Message<'SequenceState'>;
export type ModelSequenceBatchingStrategyDirect = Message<'StrategyDirect'>;
export type ModelSequenceBatchingStrategyOldest = Message<'StrategyOldest'>;
/** oneof strategy_choice: direct | oldest */
export type ModelSequenceBatching = Message<'ModelSequenceBatching'>;
/** input_map: model input name -> ensemble tensor; output_map: model output name -> ensemble tensor; model_version -1 = latest */
export type ModelEnsemblingStep = Message<'EnsembleStep'>;
export type ModelEnsembling = Message<'ModelEnsembling'>;
export type ModelParameter = Message<'ModelParameter'>;
/** oneof input_data_type: zero_data | random_data | input_data_file */
export type ModelWarmupInput = Message<'WarmupInput'>;
export type ModelWarmup = Message<'ModelWarmup'>;
export type ModelOperations = Message<'ModelOperations'>;
export type ModelTransactionPolicy = Message<'ModelTransactionPolicy'>;
export type ModelRepositoryAgentsAgent = Message<'Agent'>;
export type ModelRepositoryAgents = Message<'ModelRepositoryAgents'>;
export type ModelResponseCache = Message<'ModelResponseCache'>;
export type ModelMetricsMetricControlMetricIdentifier = Message<'MetricIdentifier'>;
export type ModelMetricsMetricControlHistogramOptions = Message<'HistogramOptions'>;
/** oneof metric_options: histogram_options */
export type ModelMetricsMetricControl = Message<'MetricControl'>;
export type ModelMetrics = Message<'ModelMetrics'>;
/** oneof scheduling_choice: dynamic_batching | sequence_batching | ensemble_scheduling */
export type ModelConfig = Message<'ModelConfig'>;
