/**
 * The load scenario's contract, declared once: each TypeBox schema here is the validator (validate.ts)
 * and, through Static, the type the planner uses (scenario.ts), so a field the type allows can never be
 * refused by the validator or the other way round. Objects are closed (a misspelt field is named, not
 * ignored), numbers finite and bounded.
 *
 * Phases and shapes are unions told apart by `type`: validate.ts picks the member by its type and checks
 * the value against that member alone, so a refusal names the field, not "no member of the union matched".
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';

const closed = { additionalProperties: false } as const;

/** rates above this are refused: a plan at a million requests a second is not something a server carries */
export const MAX_SCENARIO_RATE_PER_S = 1e6;

const nonNegative = (o: object = {}) => Type.Number({ minimum: 0, ...o });
const rate = () => nonNegative({ maximum: MAX_SCENARIO_RATE_PER_S });
const positiveInt = () => Type.Integer({ minimum: 1 });
const label = Type.Optional(Type.String());
const dims = (minimum: number) => Type.Array(Type.Integer({ minimum }));

/** `{ value, weight }`: one entry of a mix (models, priorities, batch sizes, shapes) */
export const WeightedSchema = <T extends TSchema>(value: T) => Type.Object({ value, weight: nonNegative() }, closed);

/** a mix: at least one entry (and, checked in validate.ts, one weight above 0) */
const mix = <T extends TSchema>(value: T) => Type.Array(WeightedSchema(value), { minItems: 1 });

export const LENGTH_DISTRIBUTIONS = {
  uniform: Type.Object({ type: Type.Literal('uniform'), min: positiveInt(), max: positiveInt() }, closed),
  normal: Type.Object({ type: Type.Literal('normal'), mean: nonNegative(), std: nonNegative(), min: positiveInt(), max: positiveInt() }, closed),
  choice: Type.Object({ type: Type.Literal('choice'), values: Type.Array(positiveInt(), { minItems: 1 }), weights: Type.Optional(Type.Array(nonNegative())) }, closed),
};

export const SHAPES = {
  fixed: Type.Object({ type: Type.Literal('fixed'), dims: Type.Optional(dims(-1)) }, closed),
  choice: Type.Object({ type: Type.Literal('choice'), options: mix(dims(-1)) }, closed),
  /** variable-length inputs: dims with one entry -1 replaced by a drawn length, bucketed to `bucket` */
  length: Type.Object({ type: Type.Literal('length'), dims: Type.Optional(dims(-1)), length: Type.Union(Object.values(LENGTH_DISTRIBUTIONS)), bucket: Type.Optional(positiveInt()) }, closed),
};

/** the fields of one recorded arrival, once for a replay phase's arrivals and a trace file's lines */
const arrivalFields = {
  t_us: nonNegative(),
  model: Type.String(),
  version: Type.Optional(Type.String()),
  priority: Type.Optional(Type.Integer({ minimum: 0 })),
  batch_size: positiveInt(),
  /** the request's concrete input dims */
  shape: Type.Optional(dims(0)),
  /** per-request queue timeout override, µs */
  timeout_us: Type.Optional(nonNegative()),
  id: Type.Optional(Type.String()),
};

/** a recorded arrival a replay phase plays; no model: the run's target model */
export const ReplayArrivalSchema = Type.Object({ ...arrivalFields, model: Type.Optional(Type.String()) }, closed);

/** one arrival line of a trace file (load/trace.ts): the model named, batch_size 1 when absent */
export const TraceLineSchema = Type.Object({ ...arrivalFields, batch_size: Type.Optional(positiveInt()) }, closed);

export const PHASES = {
  constant: Type.Object({ type: Type.Literal('constant'), duration_s: nonNegative(), rate: rate(), label }, closed),
  poisson: Type.Object({ type: Type.Literal('poisson'), duration_s: nonNegative(), rate: rate(), label }, closed),
  ramp: Type.Object({
    type: Type.Literal('ramp'), duration_s: nonNegative(), from: rate(), to: rate(),
    arrival: Type.Optional(Type.Union([Type.Literal('poisson'), Type.Literal('uniform')])), label,
  }, closed),
  burst: Type.Object({
    type: Type.Literal('burst'), duration_s: nonNegative(), rate: rate(), burst_size: nonNegative(),
    burst_every_s: Type.Number({ exclusiveMinimum: 0 }), burst_spread_us: Type.Optional(nonNegative()), label,
  }, closed),
  closed: Type.Object({ type: Type.Literal('closed'), duration_s: nonNegative(), concurrency: positiveInt(), think_us: Type.Optional(nonNegative()), label }, closed),
  idle: Type.Object({ type: Type.Literal('idle'), duration_s: nonNegative(), label }, closed),
  replay: Type.Object({ type: Type.Literal('replay'), duration_s: nonNegative(), arrivals: Type.Array(ReplayArrivalSchema), speed: Type.Optional(nonNegative()), label }, closed),
};

export const PhaseSchema = Type.Union(Object.values(PHASES));
export const ShapeSpecSchema = Type.Union(Object.values(SHAPES));

export const ScenarioSchema = Type.Object({
  name: Type.String({ minLength: 1 }),
  description: Type.Optional(Type.String()),
  seed: Type.Optional(Type.Integer()),
  /** model mix; absent = every request goes to the target model */
  models: Type.Optional(mix(Type.String({ minLength: 1 }))),
  /** priority mix; absent = no priority (the model's default level) */
  priorities: Type.Optional(mix(positiveInt())),
  /** samples per request; absent = 1 */
  batch_sizes: Type.Optional(mix(positiveInt())),
  shapes: Type.Optional(ShapeSpecSchema),
  /** per-request queue timeout override in µs (honoured only where allow_timeout_override is set) */
  timeout_us: Type.Optional(nonNegative()),
  phases: Type.Array(PhaseSchema, { minItems: 1 }),
}, closed);

export type Scenario = Static<typeof ScenarioSchema>;
export type Phase = Static<typeof PhaseSchema>;
export type ShapeSpec = Static<typeof ShapeSpecSchema>;
export type LengthDistribution = Static<(typeof LENGTH_DISTRIBUTIONS)[keyof typeof LENGTH_DISTRIBUTIONS]>;
export type ReplayArrival = Static<typeof ReplayArrivalSchema>;
export interface Weighted<T> { value: T; weight: number }
