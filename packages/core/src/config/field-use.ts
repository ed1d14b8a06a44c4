/**
 * What InferScope does with every field of model_config.proto: the one declaration of which fields the
 * runtime honours, which have no effect by Triton's own definition on what InferScope serves, and which it
 * parses and validates but does not serve.
 *
 * Why it exists: a field that is parsed, validated with Triton's words and then ignored is a wrong answer
 * (a stateful model loaded READY ran every request without its state). A config that sets a refused field
 * is UNAVAILABLE with the reason, as any failed load, until the field is built.
 *
 * A key is a dotted path from ModelConfig (repeated and map fields have no index). An entry covers the
 * fields below it unless one of them has its own. test/config/field-use.test.ts walks the schema and fails
 * when a field has no decision, and checks that each `honoured` entry names a file that reads the field.
 */
import { schemaOf, type MessageName } from './schema';
import type { ConfigIssue } from './errors';
import type { ModelConfig } from './types';

export type FieldUse =
  /** the runtime reads it; `by` is the repository file that does (checked by the test) */
  | { use: 'honoured'; by: string }
  /** no effect on what InferScope serves, and none in Triton either for the backends InferScope has */
  | { use: 'inert'; why: string }
  /** parsed and validated, not served: a config that sets it (to anything but its default) is refused */
  | { use: 'refused'; why: string };

const honoured = (by: string): FieldUse => ({ use: 'honoured', by });
const inert = (why: string): FieldUse => ({ use: 'inert', why });
const refused = (why: string): FieldUse => ({ use: 'refused', why });

const SPEC = 'apps/server/src/infer/model-spec.ts';
const POLICY = 'packages/core/src/scheduler/policy.ts';
const QUEUES = POLICY;
const POOL = 'packages/core/src/scheduler/instance-pool.ts';
const ENSEMBLE = 'apps/server/src/ensemble/plan.ts';
const WARMUP = 'apps/server/src/backends/onnxruntime/warmup.ts';
const SESSION = 'apps/server/src/backends/onnxruntime/session-options.ts';
const VERSIONS = 'packages/core/src/repository/versions.ts';
const SEQUENCE = 'packages/core/src/scheduler/sequence/policy.ts';
const CONTROLS = 'packages/core/src/scheduler/sequence/controls.ts';
const STATE = 'packages/core/src/scheduler/sequence/state.ts';
const ITERATIVE = 'apps/server/src/generate/generative-model.ts';
const TENSORRT_ONLY = "read only by Triton's TensorRT backend; its onnxruntime, PyTorch and python backends ignore it too";

export const FIELD_USE: Readonly<Record<string, FieldUse>> = {
  name: honoured('apps/server/src/models/config-loader.ts'),
  platform: honoured('packages/core/src/config/platforms.ts'),
  backend: honoured('packages/core/src/config/platforms.ts'),
  runtime: refused('InferScope picks the runtime from the backend; a custom backend library or python runtime is not loaded'),
  'version_policy.latest.num_versions': honoured(VERSIONS),
  'version_policy.all': honoured(VERSIONS),
  'version_policy.specific.versions': honoured(VERSIONS),
  max_batch_size: honoured(POLICY),
  'input.name': honoured(SPEC),
  'input.data_type': honoured(SPEC),
  'input.format': inert('a description for clients (image_client reads it); Triton does not act on it either'),
  'input.dims': honoured(SPEC),
  'input.reshape.shape': honoured(SPEC),
  'input.is_shape_tensor': honoured(SPEC),
  'input.allow_ragged_batch': refused('ragged batching (inputs of different shapes in one batch) is not built'),
  'input.optional': honoured('apps/server/src/infer/validate-request.ts'),
  'input.is_non_linear_format_io': refused(`non-linear tensor formats are ${TENSORRT_ONLY}`),
  'output.name': honoured(SPEC),
  'output.data_type': honoured(SPEC),
  'output.dims': honoured(SPEC),
  'output.reshape.shape': honoured('apps/server/src/backends/stub/outputs.ts'),
  'output.label_filename': honoured('apps/server/src/infer/run-inference.ts'),
  'output.is_shape_tensor': refused('shape-tensor outputs are not built'),
  'output.is_non_linear_format_io': refused(`non-linear tensor formats are ${TENSORRT_ONLY}`),
  batch_input: refused('batch inputs (ragged batching support tensors) are not built'),
  batch_output: refused('batch outputs (ragged batching support tensors) are not built'),
  'optimization.graph.level': honoured(SESSION),
  'optimization.priority': inert(TENSORRT_ONLY),
  'optimization.cuda': inert(`CUDA graphs and copy streams are ${TENSORRT_ONLY}`),
  'optimization.execution_accelerators.gpu_execution_accelerator.name': honoured(SESSION),
  'optimization.execution_accelerators.gpu_execution_accelerator.parameters': honoured(SESSION),
  'optimization.execution_accelerators.cpu_execution_accelerator.name': honoured(SESSION),
  'optimization.execution_accelerators.cpu_execution_accelerator.parameters': honoured(SESSION),
  'optimization.input_pinned_memory': inert('pinned buffers speed host-to-GPU copies; InferScope hands CPU tensors over in place'),
  'optimization.output_pinned_memory': inert('pinned buffers speed GPU-to-host copies; InferScope hands CPU tensors over in place'),
  'optimization.gather_kernel_buffer_threshold': inert("a GPU gather kernel's threshold; the result is the same tensors either way"),
  'optimization.eager_batching': inert(TENSORRT_ONLY),
  'dynamic_batching.preferred_batch_size': honoured(POLICY),
  'dynamic_batching.max_queue_delay_microseconds': honoured(POLICY),
  'dynamic_batching.preserve_ordering': honoured(POLICY),
  'dynamic_batching.priority_levels': honoured(POLICY),
  'dynamic_batching.default_priority_level': honoured(POLICY),
  'dynamic_batching.default_queue_policy.timeout_action': honoured(QUEUES),
  'dynamic_batching.default_queue_policy.default_timeout_microseconds': honoured(QUEUES),
  'dynamic_batching.default_queue_policy.allow_timeout_override': honoured(QUEUES),
  'dynamic_batching.default_queue_policy.max_queue_size': honoured(QUEUES),
  'dynamic_batching.priority_queue_policy.timeout_action': honoured(QUEUES),
  'dynamic_batching.priority_queue_policy.default_timeout_microseconds': honoured(QUEUES),
  'dynamic_batching.priority_queue_policy.allow_timeout_override': honoured(QUEUES),
  'dynamic_batching.priority_queue_policy.max_queue_size': honoured(QUEUES),
  'sequence_batching.direct.max_queue_delay_microseconds': honoured(SEQUENCE),
  'sequence_batching.direct.minimum_slot_utilization': honoured(SEQUENCE),
  'sequence_batching.oldest.max_candidate_sequences': honoured(SEQUENCE),
  'sequence_batching.oldest.preferred_batch_size': honoured(SEQUENCE),
  'sequence_batching.oldest.max_queue_delay_microseconds': honoured(SEQUENCE),
  // each instance's batches run one at a time and answer in order, as Triton's per-instance batcher does
  'sequence_batching.oldest.preserve_ordering': honoured(SEQUENCE),
  'sequence_batching.max_sequence_idle_microseconds': honoured(SEQUENCE),
  'sequence_batching.control_input.name': honoured(CONTROLS),
  'sequence_batching.control_input.control.kind': honoured(CONTROLS),
  'sequence_batching.control_input.control.int32_false_true': honoured(CONTROLS),
  'sequence_batching.control_input.control.fp32_false_true': honoured(CONTROLS),
  'sequence_batching.control_input.control.bool_false_true': honoured(CONTROLS),
  'sequence_batching.control_input.control.data_type': honoured(CONTROLS),
  'sequence_batching.state.input_name': honoured(STATE),
  'sequence_batching.state.output_name': honoured(STATE),
  'sequence_batching.state.data_type': honoured(STATE),
  'sequence_batching.state.dims': honoured(STATE),
  'sequence_batching.state.initial_state.data_type': honoured(STATE),
  'sequence_batching.state.initial_state.dims': honoured(STATE),
  'sequence_batching.state.initial_state.zero_data': honoured(STATE),
  'sequence_batching.state.initial_state.name': honoured(STATE),
  'sequence_batching.state.initial_state.data_file': refused("reading an initial state from the model's initial_state folder is not built (zero_data is)"),
  'sequence_batching.state.use_same_buffer_for_input_output': inert('a memory optimisation of the state buffers; the values a model reads are the same'),
  'sequence_batching.state.use_growable_memory': refused('growable state memory (CUDA virtual memory) is not built'),
  // with it, the model is served by the iterative scheduler, which refuses the other fields (generative-model.ts)
  'sequence_batching.iterative_sequence': honoured(ITERATIVE),
  'ensemble_scheduling.step.model_name': honoured(ENSEMBLE),
  'ensemble_scheduling.step.model_version': honoured(ENSEMBLE),
  'ensemble_scheduling.step.input_map': honoured(ENSEMBLE),
  'ensemble_scheduling.step.output_map': honoured(ENSEMBLE),
  'ensemble_scheduling.step.model_namespace': refused('model namespacing is not built'),
  'ensemble_scheduling.max_inflight_requests': refused("the bound on an ensemble's in-flight requests is not built"),
  'instance_group.name': honoured(POOL),
  'instance_group.kind': honoured(POOL),
  'instance_group.count': honoured(POOL),
  // read into each instance's needs; the server's rate limiter (--rate-limit execution_count) enforces them
  'instance_group.rate_limiter.resources': honoured(POOL),
  'instance_group.rate_limiter.priority': honoured(POOL),
  'instance_group.gpus': honoured(POOL),
  'instance_group.secondary_devices': refused('secondary devices (NVDLA) are not supported'),
  'instance_group.profile': inert(`optimisation profiles are ${TENSORRT_ONLY}`),
  'instance_group.passive': refused('passive instances (loaded, never scheduled) are not built'),
  'instance_group.host_policy': refused('host policies (NUMA placement) are not built'),
  default_model_filename: honoured('apps/server/src/models/config-loader.ts'),
  cc_model_filenames: refused('choosing the model file by GPU compute capability is not built'),
  metric_tags: refused('extra metric labels per model are not built'),
  'parameters.string_value': honoured('apps/server/src/backends/onnxruntime/session-options.ts'),
  'model_warmup.name': honoured(WARMUP),
  'model_warmup.batch_size': honoured(WARMUP),
  'model_warmup.inputs.data_type': honoured(WARMUP),
  'model_warmup.inputs.dims': honoured(WARMUP),
  'model_warmup.inputs.zero_data': honoured(WARMUP),
  'model_warmup.inputs.random_data': honoured(WARMUP),
  'model_warmup.inputs.input_data_file': honoured(WARMUP),
  'model_warmup.count': honoured(WARMUP),
  'model_operations.op_library_filename': refused('custom operation libraries are not loaded'),
  'model_transaction_policy.decoupled': honoured('packages/core/src/config/transaction-policy.ts'),
  'model_repository_agents.agents': refused('repository agents (checksum, encryption ...) are not run'),
  'response_cache.enable': honoured('apps/server/src/models/model-manager.ts'),
  'model_metrics.metric_control': refused('per-model metric histogram options are not built'),
};

/** The decision for a dotted path: its own entry, or the nearest ancestor's. */
export function fieldUseOf(path: string): FieldUse | undefined {
  for (let p = path; p; p = p.slice(0, Math.max(0, p.lastIndexOf('.')))) {
    const use = FIELD_USE[p];
    if (use) return use;
  }
  return undefined;
}

/** Every dotted path of the schema, messages and leaves, from ModelConfig down. */
export function schemaPaths(message: MessageName = 'ModelConfig', prefix = ''): string[] {
  const out: string[] = [];
  for (const [field, spec] of Object.entries(schemaOf(message).fields)) {
    const path = prefix ? `${prefix}.${field}` : field;
    out.push(path);
    if (spec.kind === 'message') out.push(...schemaPaths(spec.message, path));
  }
  return out;
}

/** Set = present and not the proto default: a message that is written, a non-empty list or map, a non-zero scalar. */
function isSet(value: unknown, isMap: boolean): boolean {
  if (value === undefined || value === null || value === false || value === 0 || value === '') return false;
  if (Array.isArray(value)) return value.length > 0;
  // a map prints as {} when empty (protobuf's JSON mapping): nothing asked for
  if (isMap) return Object.keys(value as object).length > 0;
  return true;
}

/**
 * The issues of a config that Triton accepts but that sets a field InferScope does not serve, one per field
 * path (the first place it is set). Empty = everything the config asks for is served.
 */
export function unservedFields(config: ModelConfig): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const visit = (message: MessageName, value: Record<string, unknown>, prefix: string, at: string, seen: Set<string>): void => {
    for (const [field, spec] of Object.entries(schemaOf(message).fields)) {
      const v = value[field];
      if (!isSet(v, spec.mapKey !== undefined)) continue;
      const path = prefix ? `${prefix}.${field}` : field;
      const where = at ? `${at}.${field}` : field;
      const use = FIELD_USE[path];
      if (use?.use === 'refused') {
        if (!seen.has(path)) {
          seen.add(path);
          issues.push({
            message: `InferScope does not serve '${path}' yet: ${use.why}. The model is not loaded rather than served without it`,
            hint: 'remove the field to serve the model without it',
            path: where,
          });
        }
        continue;
      }
      if (spec.kind !== 'message') continue;
      const items: [string, unknown][] = spec.mapKey
        ? Object.entries(v as Record<string, unknown>).map(([k, item]) => [`${where}[${k}]`, item])
        : Array.isArray(v) ? v.map((item, i) => [`${where}[${i}]`, item]) : [[where, v]];
      for (const [itemAt, item] of items) {
        if (item && typeof item === 'object') visit(spec.message, item as Record<string, unknown>, path, itemAt, seen);
      }
    }
  };
  visit('ModelConfig', config as unknown as Record<string, unknown>, '', '', new Set());
  return issues;
}
