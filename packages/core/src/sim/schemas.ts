/**
 * What the simulator reads from outside, declared once: the calibration file (what `inferscope calibrate`
 * writes, what a live server answers on GET /v2/models/{m}/calibration, what `simulate --calibration FILE`
 * and teaching mode read), and the cost model (`simulate --cost FILE`, a scenario's
 * costs). Each TypeBox schema here is both the validator and, through Static, the type the simulator uses,
 * so a field the type promises (a calibration's `fit`, its `host`) can never be missing from a file that
 * passed validation. Objects are closed (a misspelt field is named, not ignored) and numbers bounded.
 *
 * Only what `simulate` and teaching mode use is here. The simulator-fidelity bench's figures of the
 * host (timer lateness, main-thread stalls and collections, spin and answer wake-ups, effective cores)
 * are the bench's own (bench/sim-host/schemas.ts), in a file of their own beside the calibration.
 *
 * Quantile tables (distribution.ts) carry the one rule a schema cannot state (levels in [0, 1], at least
 * two, values not decreasing): a custom kind checked by validateQuantiles, which also words its refusals.
 */
import { Kind, Type, TypeRegistry, type Static } from '@sinclair/typebox';
import { validateQuantiles, type Quantiles } from './distribution';
import { registerKindWording, schemaProblems } from '../util/schema-problems';

export { schemaProblems };

const QUANTILES_KIND = 'InferScopeQuantiles';
if (!TypeRegistry.Has(QUANTILES_KIND)) TypeRegistry.Set(QUANTILES_KIND, (_schema, value) => validateQuantiles(value, '').length === 0);
registerKindWording(QUANTILES_KIND, (value, at) => validateQuantiles(value, at));

/** A quantile table {level: value} (distribution.ts). */
export const QuantilesSchema = Type.Unsafe<Quantiles>({ [Kind]: QUANTILES_KIND });

const closed = { additionalProperties: false } as const;

/** batch size (a decimal integer >= 1) -> µs > 0, at least one entry */
const BatchTableSchema = Type.Record(Type.String({ pattern: '^[1-9][0-9]*$' }), Type.Number({ exclusiveMinimum: 0 }), { minProperties: 1, description: 'batch sizes >= 1', ...closed });

/** a cost model's table: batch size -> µs >= 0 (a hand-written model may say 0), at least one entry */
const CostTableSchema = Type.Record(Type.String({ pattern: '^[1-9][0-9]*$' }), Type.Number({ minimum: 0 }), { minProperties: 1, description: 'batch sizes >= 1', ...closed });

/** Interruptions of a thread (a rate and how long they last); the bench's main-thread stalls have the same shape. */
export const StallProfileSchema = Type.Object({
  /** interruptions starting per second */
  rate_per_s: Type.Number({ minimum: 0 }),
  /** how long they last, µs */
  duration_us: QuantilesSchema,
}, closed);

/** idle µs before a batch (a decimal number >= 0) -> extra µs >= 0 it costs, at least one entry */
export const IdlePenaltySchema = Type.Record(Type.String({ pattern: '^[0-9]+(\\.[0-9]+)?$' }), Type.Number({ minimum: 0 }), { minProperties: 1, description: 'idle µs >= 0', ...closed });

export const CalibrationSchema = Type.Object({
  format: Type.Literal('inferscope-calibration'),
  model: Type.String({ minLength: 1 }),
  /** the model version the figures are for (live calibrations; shipped ones are version 1) */
  version: Type.Optional(Type.String({ minLength: 1 })),
  backend: Type.String({ minLength: 1 }),
  /** instance_group kind the figures are for, e.g. KIND_CPU */
  kind: Type.String({ minLength: 1 }),
  /** what the figures were measured with: one instance, intra-op threads, the input shape of one sample */
  method: Type.String(),
  /** the machine measured on: `simulate` gives its simulated host `cpus` cores unless told --cores */
  host: Type.Object({
    cpus: Type.Integer({ minimum: 1 }),
    platform: Type.String(),
    runtime: Type.String(),
  }, closed),
  measured_at: Type.String(),
  /** batch size -> median µs of one batch, as the scheduler sees it (hand-off to the instance included) */
  table_us: BatchTableSchema,
  /** the least-squares line through table_us: what a teacher explains (fixed + per item) */
  fit: Type.Object({ fixed_us: Type.Number({ minimum: 0 }), per_item_us: Type.Number({ minimum: 0 }) }, closed),
  /**
   * batch size -> median µs of the backend's own run (onnxruntime's session.run in the calling thread,
   * torch's forward() in Python), without the server's hand-off to the instance's worker: the model's
   * compute alone, the figure that shows whether it is memory-bound (flat) or compute-bound (linear).
   */
  session_us: Type.Optional(BatchTableSchema),
  /**
   * batch size -> median µs per batch with two in flight (the instance handed its next batch while it
   * computes, as the server's prefetch does under load): the instance's own cycle, the hand-off to and from
   * its worker hidden behind the batch before. Never above table_us at the same size.
   */
  held_us: Type.Optional(BatchTableSchema),
  /**
   * How the measured batch times scatter around table_us (quantiles of time / median at its size, pooled),
   * interruptions left out: the simulator draws each batch's time from it (fitBatchRecords).
   */
  spread: Type.Optional(QuantilesSchema),
  /**
   * The batches that took far longer than their size's median (the instance's thread descheduled, not the
   * work varying): how often per second of batch time, and the µs they added (fitBatchRecords).
   */
  interruptions: Type.Optional(StallProfileSchema),
  /**
   * idle µs before a batch -> extra µs it costs over table_us (its worker asleep, caches cold): the table
   * is measured back to back, moderate traffic runs every batch after a gap. Interpolated, flat beyond.
   */
  idle_penalty_us: Type.Optional(IdlePenaltySchema),
  /** where the figures come from: `inferscope calibrate` (default) or a live server's own batches */
  source: Type.Optional(Type.Union([Type.Literal('calibrate'), Type.Literal('live')])),
  /** size -> batches behind each table entry (live calibrations) */
  counts: Type.Optional(Type.Record(Type.String({ pattern: '^[1-9][0-9]*$' }), Type.Integer({ minimum: 0 }), { description: 'batch sizes >= 1', ...closed })),
}, closed);

/**
 * How long a simulated batch takes (cost-model.ts): linear (fixed + per item) or a table per batch size,
 * with an optional hand-set jitter or the measured spread and cost after idle. At least one of
 * fixed_us, per_item_us and table must be given (checked by validateCost: a schema cannot say it).
 */
export const CostModelSchema = Type.Object({
  fixed_us: Type.Optional(Type.Number({ minimum: 0 })),
  per_item_us: Type.Optional(Type.Number({ minimum: 0 })),
  /** batch size -> µs; when present it wins over fixed/per_item */
  table: Type.Optional(CostTableSchema),
  /**
   * batch size -> µs of a batch handed to its instance while it computed the one before (a calibration's
   * held_us): it begins when that one ends, without the hand-off the table's times include (SimExecutor)
   */
  held_table: Type.Optional(CostTableSchema),
  /** 0.1 = +-10% uniform noise (a hand-set spread; `spread` is the measured one and wins) */
  jitter: Type.Optional(Type.Number({ minimum: 0, exclusiveMaximum: 1 })),
  /**
   * Measured spread of a batch's time around the table's median at its size: quantiles of (time / median),
   * from a calibration's runs (see fitBatchRecords). Each batch draws its factor from it.
   */
  spread: Type.Optional(QuantilesSchema),
  /** interruptions of the instance's thread (a calibration's interruptions): added to a batch's time, Poisson in it */
  interruptions: Type.Optional(StallProfileSchema),
  /**
   * idle µs before a batch -> extra µs (a calibration's idle_penalty_us): an instance that sat idle wakes
   * and refills its caches first. Linear between entries, flat beyond the last.
   */
  idle_penalty_us: Type.Optional(IdlePenaltySchema),
  /**
   * instance_group kind the figures are for. KIND_CPU instances share the host's cores (see CpuHost):
   * a batch started while more CPU instances are busy than there are cores runs slower. Absent: the
   * instance has a device of its own (a GPU, or a figure that already includes contention).
   */
  kind: Type.Optional(Type.String({ minLength: 1 })),
}, closed);

export type Calibration = Static<typeof CalibrationSchema>;
export type CostModel = Static<typeof CostModelSchema>;
export type StallProfile = Static<typeof StallProfileSchema>;
