/**
 * The simulator-fidelity bench's figures of the host a calibration was measured on, beside the product's
 * calibration (packages/core/src/sim/schemas.ts), which holds only what `simulate` and teaching mode use.
 * `bench calibrate` (calibrate.ts) writes them as <model>.host.json; host-model.ts turns them into the
 * simulation's host model. Same conventions as core's schemas: closed objects, bounded numbers.
 */
import { Type, type Static } from '@sinclair/typebox';
import { QuantilesSchema, StallProfileSchema, schemaProblems } from '@inferscope/core/sim';

const closed = { additionalProperties: false } as const;

export const TimerProfileSchema = Type.Object({
  /** µs a setTimeout wake-up comes after the rounded-up sleep (can be < 0: libuv measures from its cached loop time) */
  coarse_late_us: QuantilesSchema,
  /** µs a turn-checked (< 1 ms) timer fires after its time */
  fine_late_us: QuantilesSchema,
}, closed);

export const GcProfileSchema = Type.Object({
  /** requests taken in per collection, on average */
  requests_per_gc: Type.Number({ minimum: 1 }),
  /** how long a collection stops the main thread, µs */
  pause_us: QuantilesSchema,
}, closed);

/** What two spinning/waking measurements add to a model's cost (HostSimExecutor). */
export const WakeCostSchema = Type.Object({
  /**
   * quantiles of the extra µs a batch after 0.3-3 ms idle costs when the main thread spun meanwhile
   * (RealClock's sub-millisecond waits) over one after it slept: the woken instance waiting for a core
   */
  spin_wake_us: Type.Optional(QuantilesSchema),
  /**
   * median µs a batch of 1 takes longer, sent back to back, when the main thread sleeps while it waits than
   * when it turns its loop: its wake-up for the answer, part of every table_us entry
   */
  answer_wake_us: Type.Optional(Type.Number({ minimum: 0 })),
}, closed);

export const HostCalibrationSchema = Type.Object({
  format: Type.Literal('inferscope-host-calibration'),
  model: Type.String({ minLength: 1 }),
  backend: Type.String({ minLength: 1 }),
  measured_at: Type.String(),
  /** the cores this process really got when measured (cores probe) */
  effective_cores: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
  /** two instances of this model computing at once give this many instances' worth of throughput */
  parallel_cores: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
  /** the server's main-thread work per request on the in-process path, µs (main-thread probe) */
  main_thread_us_per_request: Type.Optional(Type.Number({ minimum: 0 })),
  /** the server's garbage collections on that path: requests per collection, pause lengths */
  gc: Type.Optional(GcProfileSchema),
  spin_wake_us: Type.Optional(QuantilesSchema),
  answer_wake_us: Type.Optional(Type.Number({ minimum: 0 })),
  /** the host's timer lateness when measured (RealClockModel) */
  timer: Type.Optional(TimerProfileSchema),
  /** the host's main-thread stalls when measured (StallSchedule) */
  stalls: Type.Optional(StallProfileSchema),
}, closed);

export type TimerProfile = Static<typeof TimerProfileSchema>;
export type GcProfile = Static<typeof GcProfileSchema>;
export type WakeCost = Static<typeof WakeCostSchema>;
export type HostCalibration = Static<typeof HostCalibrationSchema>;

export function validateHostCalibration(input: unknown, what = 'host calibration'): HostCalibration {
  const problems = schemaProblems(HostCalibrationSchema, input, '');
  if (problems.length) throw new Error(`invalid ${what}: ${problems.join('; ')}`);
  return input as HostCalibration;
}

/** The host a calibration describes, for a simulation: its cores (the model's own two-instance figure, else the cores probe's, else the count) and the main thread's work per request. */
export function hostFromCalibration(cpus: number, h?: HostCalibration): { cores: number; mainThreadUsPerRequest: number } {
  return { cores: h?.parallel_cores ?? h?.effective_cores ?? cpus, mainThreadUsPerRequest: h?.main_thread_us_per_request ?? 0 };
}
