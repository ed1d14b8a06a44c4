/**
 * Control messages, declared once: each action's TypeBox schema is both the validator (the server compiles
 * it) and, through StaticDecode, the ControlMessage type every handler and client uses. Every object is
 * closed (additionalProperties: false), every number bounded: integer fields that change a model's
 * configuration take their bounds from the live-config limits table, so what the dashboard offers is what
 * the server accepts.
 *
 * `errorMessage` on a schema is the sentence a refusal of that field says (read by the server's error
 * formatter); fields without one are described from their type and bounds.
 */
import { Type, type StaticDecode, type TBoolean, type TInteger, type TLiteral, type TObject, type TOptional, type TUnion } from '@sinclair/typebox';
import type { KvAdmissionPolicy } from '../kv-cache/block-allocator';
import { LIVE_LIMITS, type LiveLimitName } from '../live-config/limits';
import { AUTOTUNE_PARAMETER, NUMERIC_PARAMETERS } from '../config/numeric-parameters';
import { ITERATIVE_KNOBS, type IterativeKnob } from '../live-config/iterative-knobs';

const closed = { additionalProperties: false } as const;
/** the autotuner's target: the rule of its config parameter */
const TARGET_MS = { min: NUMERIC_PARAMETERS[AUTOTUNE_PARAMETER]!.min, max: NUMERIC_PARAMETERS[AUTOTUNE_PARAMETER]!.max! };

/** An integer inside the named live limit. */
const limited = (name: LiveLimitName) => Type.Integer({ minimum: LIVE_LIMITS[name].min, maximum: LIVE_LIMITS[name].max });

/**
 * Model names become folder names: nothing that could walk the file system (no separators, no control
 * characters, not '.' or '..').
 */
export const ModelNameSchema = Type.String({
  minLength: 1, maxLength: 256, pattern: '^(?!\\.\\.?$)[^/\\\\\\u0000-\\u001f]+$', errorMessage: 'is not a valid model name',
});

/** Trace names are file names inside the recordings folder, never paths. */
export const TraceNameSchema = Type.String({
  pattern: '^(?!.*\\.\\.)[A-Za-z0-9][A-Za-z0-9._-]{0,200}$',
  errorMessage: 'must be a file name in the recordings folder (letters, digits, . _ -)',
});

/** A model version as in URLs: a positive integer, sent as a string or a number, always a string after decoding. */
const VersionSchema = Type.Transform(
  Type.Union([Type.Integer({ minimum: 1 }), Type.String({ pattern: '^[1-9][0-9]{0,17}$' })], { errorMessage: 'must be a positive integer version' }),
).Decode((v) => String(v)).Encode((v) => v);

const IdSchema = (what: string) => Type.String({ minLength: 1, maxLength: 100, errorMessage: `must be a ${what} id` });

export const QueuePolicySchema = Type.Object({
  timeout_action: Type.Optional(Type.Union([Type.Literal('REJECT'), Type.Literal('DELAY')], { errorMessage: 'must be REJECT or DELAY' })),
  default_timeout_microseconds: Type.Optional(limited('default_timeout_microseconds')),
  allow_timeout_override: Type.Optional(Type.Boolean()),
  max_queue_size: Type.Optional(limited('max_queue_size')),
}, closed);

/** The fields of a live dynamic batching patch (the same list as live-config's BATCHING_PATCH_FIELDS). */
export const DynamicBatchingPatchFields = {
  max_queue_delay_microseconds: Type.Optional(limited('max_queue_delay_microseconds')),
  preferred_batch_size: Type.Optional(Type.Array(limited('preferred_batch_size'), { maxItems: LIVE_LIMITS.preferred_batch_sizes.max })),
  max_batch_size: Type.Optional(limited('max_batch_size')),
  default_priority_level: Type.Optional(limited('default_priority_level')),
  priority_levels: Type.Optional(limited('priority_levels')),
  default_queue_policy: Type.Optional(QueuePolicySchema),
  // keys are levels 1..LIVE_LIMITS.priority_levels.max (1000)
  priority_queue_policy: Type.Optional(Type.Record(Type.String({ pattern: '^([1-9][0-9]{0,2}|1000)$' }), QueuePolicySchema, {
    additionalProperties: false, errorMessage: `is keyed by priority level (1..${LIVE_LIMITS.priority_levels.max})`,
  })),
  preserve_ordering: Type.Optional(Type.Boolean()),
};

/** An iterative model's live knob, as its row of ITERATIVE_KNOBS says. */
function iterativeKnobSchema(k: IterativeKnob) {
  if (k.kind === 'count') return limited(k.limit);
  if (k.kind === 'switch') return Type.Boolean();
  return Type.Union(k.values.map((v) => Type.Literal(v)), { errorMessage: `must be one of ${k.values.join(', ')}` });
}

/** The fields of setIterativeKnobs: every knob of ITERATIVE_KNOBS, optional, by its config parameter key. */
export const IterativeKnobFields = Object.fromEntries(ITERATIVE_KNOBS.map((k) => [k.field, Type.Optional(iterativeKnobSchema(k))])) as unknown as {
  max_num_sequences: TOptional<TInteger>;
  max_num_tokens: TOptional<TInteger>;
  max_tokens_in_paged_kv_cache: TOptional<TInteger>;
  enable_chunked_context: TOptional<TBoolean>;
  batch_scheduler_policy: TOptional<TUnion<TLiteral<KvAdmissionPolicy>[]>>;
};

/** Resource names as --rate-limit-resource takes them: no ':' (its separator), no control characters. */
const RESOURCE_NAME = Type.String({ minLength: 1, maxLength: 256, pattern: '^[^:\\u0000-\\u001f]+$', errorMessage: 'must be a resource name (no \':\' or control characters)' });
/** counts and priorities are Triton's uint32; this bound keeps weights exact in a double */
const RATE_LIMIT_MAX = 1_000_000;

/** One schema per action: the action is checked first, then its own closed object. */
export const CONTROL_SCHEMAS = {
  setDynamicBatching: Type.Object({
    action: Type.Literal('setDynamicBatching'), model: ModelNameSchema, version: Type.Optional(VersionSchema), ...DynamicBatchingPatchFields,
  }, closed),
  setInstanceCount: Type.Object({
    action: Type.Literal('setInstanceCount'), model: ModelNameSchema, version: Type.Optional(VersionSchema),
    group: Type.Optional(Type.String({ minLength: 1, maxLength: 256, errorMessage: 'must be a non-empty string' })),
    count: limited('instance_count'),
  }, closed),
  /** the autotuner of a version (autotune/policy.ts): on with a p99 target (default: the one it had or its config's autotune_p99_ms), or off */
  setAutotune: Type.Object({
    action: Type.Literal('setAutotune'), model: ModelNameSchema, version: Type.Optional(VersionSchema), enabled: Type.Boolean(),
    // the rule of parameter autotune_p99_ms (config/numeric-parameters.ts); the service reads it by that rule too
    target_ms: Type.Optional(Type.Number({ minimum: TARGET_MS.min, maximum: TARGET_MS.max, errorMessage: `must be a p99 target in ms from ${TARGET_MS.min} to ${TARGET_MS.max}` })),
  }, closed),
  /**
   * an iterative model's step knobs (TensorRT-LLM's parameters, live-config/iterative-knobs.ts): applied
   * from the next step boundary; the policy and the KV budget re-plan every sequence there
   */
  setIterativeKnobs: Type.Object({
    action: Type.Literal('setIterativeKnobs'), model: ModelNameSchema, version: Type.Optional(VersionSchema), ...IterativeKnobFields,
  }, closed),
  /** the response cache on or off for a version (its live config's response_cache.enable), issue 54 */
  setResponseCache: Type.Object({
    action: Type.Literal('setResponseCache'), model: ModelNameSchema, version: Type.Optional(VersionSchema), enabled: Type.Boolean(),
  }, closed),
  /**
   * how many of a rate-limiter resource exist, live (as --rate-limit-resource name:count[:device] at start);
   * no device = the global pool, or every device's copy of a per-device resource
   */
  setResourceCount: Type.Object({
    action: Type.Literal('setResourceCount'), resource: RESOURCE_NAME, count: Type.Integer({ minimum: 0, maximum: RATE_LIMIT_MAX }),
    device: Type.Optional(Type.Integer({ minimum: 0, maximum: 1023, errorMessage: 'must be a device number (0..1023)' })),
  }, closed),
  /** the rate-limiter priority (a weight: executions x priority, lowest goes first) of every instance of a model */
  setRateLimitPriority: Type.Object({
    action: Type.Literal('setRateLimitPriority'), model: ModelNameSchema, priority: Type.Integer({ minimum: 1, maximum: RATE_LIMIT_MAX }),
  }, closed),
  loadModel: Type.Object({ action: Type.Literal('loadModel'), model: ModelNameSchema }, closed),
  unloadModel: Type.Object({ action: Type.Literal('unloadModel'), model: ModelNameSchema }, closed),
  /** writes the live config of `version` (default: the latest loaded) to the model's config.pbtxt */
  saveConfig: Type.Object({
    action: Type.Literal('saveConfig'), model: ModelNameSchema, version: Type.Optional(VersionSchema), dryRun: Type.Optional(Type.Boolean()),
  }, closed),
  startLoad: Type.Object({
    action: Type.Literal('startLoad'), model: ModelNameSchema, version: Type.Optional(VersionSchema),
    // A scenario object is checked by the load module's own validator when the load starts.
    scenario: Type.Union([Type.String({ minLength: 1, maxLength: 100 }), Type.Record(Type.String(), Type.Unknown())], { errorMessage: 'must be a preset name or a scenario object' }),
    rate: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 100_000 })),
    concurrency: Type.Optional(Type.Integer({ minimum: 1, maximum: 1024 })),
    duration: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 3600 })),
    seed: Type.Optional(Type.Integer({ minimum: 0, maximum: 2 ** 32 - 1 })),
    record: Type.Optional(Type.Boolean()),
    mode: Type.Optional(Type.Union([Type.Literal('http'), Type.Literal('inprocess')], { errorMessage: 'must be http or inprocess' })),
  }, closed),
  stopLoad: Type.Object({ action: Type.Literal('stopLoad'), id: Type.Optional(IdSchema('load')) }, closed),
  startReplay: Type.Object({
    action: Type.Literal('startReplay'), trace: TraceNameSchema,
    speed: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 1000 })),
    model: Type.Optional(ModelNameSchema),
  }, closed),
  /** record the arrivals of whatever traffic reaches these models (all when absent) until stopRecording */
  startRecording: Type.Object({
    action: Type.Literal('startRecording'),
    models: Type.Optional(Type.Array(ModelNameSchema, { minItems: 1, maxItems: 100, errorMessage: 'must be a non-empty list of model names' })),
  }, closed),
  stopRecording: Type.Object({ action: Type.Literal('stopRecording'), id: Type.Optional(IdSchema('recording')) }, closed),
  /** runs a config sweep in the server (apps/server/src/clients/analyze): lists are the grid's axes; progress in stats.sweep */
  startSweep: Type.Object({
    action: Type.Literal('startSweep'), model: ModelNameSchema, version: Type.Optional(VersionSchema),
    instances: Type.Optional(Type.Array(limited('instance_count'), { minItems: 1, maxItems: 32 })),
    max_batch: Type.Optional(Type.Array(limited('max_batch_size'), { minItems: 1, maxItems: 32 })),
    delay_us: Type.Array(limited('max_queue_delay_microseconds'), { minItems: 1, maxItems: 32 }),
    preferred: Type.Optional(Type.Array(
      Type.Union([Type.Literal('none'), Type.Literal('max'), Type.Array(limited('preferred_batch_size'), { minItems: 1, maxItems: LIVE_LIMITS.preferred_batch_sizes.max })],
        { errorMessage: "must be 'none', 'max' or a list of sizes" }),
      { minItems: 1, maxItems: 16 },
    )),
    concurrency: Type.Optional(Type.Integer({ minimum: 1, maximum: 1024 })),
    latency_budget_ms: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 3_600_000 })),
    measurement_interval_ms: Type.Optional(Type.Integer({ minimum: 50, maximum: 60_000 })),
    search: Type.Optional(Type.Union([Type.Literal('auto'), Type.Literal('grid'), Type.Literal('prune')], { errorMessage: 'must be auto, grid or prune' })),
    confirm: Type.Optional(Type.Integer({ minimum: 0, maximum: 10 })),
  }, closed),
  stopSweep: Type.Object({ action: Type.Literal('stopSweep') }, closed),
} satisfies Record<string, TObject>;

export type ControlAction = keyof typeof CONTROL_SCHEMAS;
export const CONTROL_ACTIONS = Object.keys(CONTROL_SCHEMAS) as ControlAction[];

/** A validated control message (versions decoded to strings). */
export type ControlMessage = { [A in ControlAction]: StaticDecode<(typeof CONTROL_SCHEMAS)[A]> }[ControlAction];
export type ControlMessageOf<A extends ControlAction> = Extract<ControlMessage, { action: A }>;
