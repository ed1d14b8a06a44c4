/**
 * Calibration: a model's measured batch times on one backend and instance kind, written by
 * `inferscope calibrate` (real onnxruntime sessions at batch 1..64 on the machine it ran on) and turned
 * into a CostModel here. The table is what the simulator uses (interpolated between measured sizes); the
 * linear fit (fixed + per item, least squares) is kept beside it because it is what a teacher explains.
 */
import { validateIdlePenalty, type CostModel } from './cost-model';
import { validateQuantiles, type Quantiles } from './distribution';
import { validateTimerProfile, type TimerProfile } from './real-clock-model';
import { validateStallProfile, type StallProfile } from './stalls';
import { validateGcProfile, type GcProfile } from './gc-pauses';

export interface Calibration {
  format: 'inferscope-calibration';
  model: string;
  /** the model version the figures are for (live calibrations; shipped ones are version 1) */
  version?: string;
  backend: string;
  /** instance_group kind the figures are for, e.g. KIND_CPU */
  kind: string;
  /** what the figures were measured with: one instance, intra-op threads, the input shape of one sample */
  method: string;
  /** effective_cores: the cores this process really got when measured (cores probe); absent: cpus */
  host: { cpus: number; platform: string; runtime: string; effective_cores?: number };
  /** two instances of this model computing at once give this many instances' worth of throughput (the model's own cores figure) */
  parallel_cores?: number;
  /** the server's main-thread work per request on the in-process path, µs (main-thread probe) */
  main_thread_us_per_request?: number;
  /** the server's garbage collections on that path: requests per collection, pause lengths (main-thread probe) */
  gc?: GcProfile;
  measured_at: string;
  /** batch size -> median µs of one batch, as the scheduler sees it (hand-off to the instance included) */
  table_us: Record<string, number>;
  fit: { fixed_us: number; per_item_us: number };
  /**
   * batch size -> median µs of the backend's own run (onnxruntime's session.run in the calling thread, torch's forward() in Python),
   * without the server's hand-off to the instance's worker: the model's compute alone, the figure that
   * shows whether it is memory-bound (flat) or compute-bound (linear).
   */
  session_us?: Record<string, number>;
  /**
   * How the measured batch times scatter around table_us (quantiles of time / median at its size, pooled):
   * the simulator draws each batch's time from it (fitBatchRecords).
   */
  spread?: Quantiles;
  /**
   * idle µs before a batch -> extra µs it costs over table_us (its worker asleep, caches cold): the table
   * is measured back to back, moderate traffic runs every batch after a gap. Interpolated, flat beyond.
   */
  idle_penalty_us?: Record<string, number>;
  /**
   * quantiles of the extra µs a batch after 0.3-3 ms idle costs when the main thread spun meanwhile (RealClock's
   * sub-millisecond waits) over one after it slept: the woken instance waiting for a core (CostModel.spin_wake_us)
   */
  spin_wake_us?: Quantiles;
  /** the host's timer lateness when measured (RealClockModel): what a simulation of this server's timers uses */
  timer?: TimerProfile;
  /** the host's main-thread stalls when measured (StallSchedule) */
  stalls?: StallProfile;
  /** where the figures come from: `inferscope calibrate` (default) or a live server's own batches */
  source?: 'calibrate' | 'live';
  /** size -> batches behind each table entry (live calibrations) */
  counts?: Record<string, number>;
}

export class CalibrationError extends Error {
  override name = 'CalibrationError';
}

/**
 * Least-squares line through (batch, µs): the fixed cost of a run and the cost of one more sample.
 * `weights` (size -> weight, e.g. how many batches stand behind each entry) weights the fit; default equal.
 */
export function fitLinear(table: Record<string, number>, weights?: Record<string, number>): { fixed_us: number; per_item_us: number } {
  const pts = Object.entries(table).map(([k, v]) => [Number(k), v, weights?.[k] ?? 1] as const);
  const n = pts.length;
  if (n === 0) throw new CalibrationError('cannot fit an empty table');
  if (n === 1) return { fixed_us: 0, per_item_us: pts[0][1] / pts[0][0] };
  const w = pts.reduce((s, p) => s + p[2], 0);
  const mx = pts.reduce((s, p) => s + p[2] * p[0], 0) / w;
  const my = pts.reduce((s, p) => s + p[2] * p[1], 0) / w;
  const sxx = pts.reduce((s, p) => s + p[2] * (p[0] - mx) ** 2, 0);
  const sxy = pts.reduce((s, p) => s + p[2] * (p[0] - mx) * (p[1] - my), 0);
  const slope = sxx > 0 ? sxy / sxx : 0;
  const round = (v: number) => Math.round(v * 100) / 100;
  return { fixed_us: round(Math.max(0, my - slope * mx)), per_item_us: round(Math.max(0, slope)) };
}

export function validateCalibration(input: unknown, what = 'calibration'): Calibration {
  const o = input as Partial<Calibration> | null;
  const problems: string[] = [];
  if (typeof o !== 'object' || o === null) throw new CalibrationError(`${what} must be a JSON object`);
  if (o.format !== 'inferscope-calibration') problems.push('format: must be "inferscope-calibration"');
  for (const k of ['model', 'backend', 'kind'] as const) if (typeof o[k] !== 'string' || !o[k]) problems.push(`${k}: must be a non-empty string`);
  const t = o.table_us;
  if (typeof t !== 'object' || t === null || Object.keys(t).length === 0) problems.push('table_us: must be a non-empty object {batch size: µs}');
  else for (const [k, v] of Object.entries(t)) {
    if (!/^[1-9]\d*$/.test(k)) problems.push(`table_us.${k}: keys must be batch sizes >= 1`);
    if (!(typeof v === 'number' && Number.isFinite(v) && v > 0)) problems.push(`table_us.${k}: must be a number of µs > 0`);
  }
  if (o.spread !== undefined) problems.push(...validateQuantiles(o.spread, 'spread'));
  if (o.timer !== undefined) problems.push(...validateTimerProfile(o.timer));
  if (o.idle_penalty_us !== undefined) problems.push(...validateIdlePenalty(o.idle_penalty_us));
  if (o.spin_wake_us !== undefined) problems.push(...validateQuantiles(o.spin_wake_us, 'spin_wake_us'));
  if (o.stalls !== undefined) problems.push(...validateStallProfile(o.stalls));
  if (o.gc !== undefined) problems.push(...validateGcProfile(o.gc));
  if (o.main_thread_us_per_request !== undefined && !(typeof o.main_thread_us_per_request === 'number' && o.main_thread_us_per_request >= 0)) problems.push('main_thread_us_per_request: must be a number >= 0');
  if (o.source !== undefined && o.source !== 'calibrate' && o.source !== 'live') problems.push('source: must be "calibrate" or "live"');
  if (problems.length) throw new CalibrationError(`invalid ${what}: ${problems.join('; ')}`);
  return o as Calibration;
}

/**
 * The cost model a calibration stands for (its CPU kind makes it share the host's cores with other CPU
 * instances): the table, the fitted slope beyond it, and the measured spread of batch times and cost
 * after idle (with the main thread asleep, and spinning) unless a hand-set jitter is asked for (`spread: false`: every batch takes exactly its median).
 *
 * `spinWake` (off by default) adds the measured wait of an instance woken while the main thread spins
 * (spin_wake_us). It is opt-in because the strength calibrate measures for it fits one fidelity case
 * (the MLP at delay 2 ms) and overstates the others: with it the simulated p99 of three moderate cases
 * of four came out 56-98% too long, without it 2-22% (README, "Fidelity").
 */
export function costFromCalibration(cal: Calibration, jitter = 0, spread = true, spinWake = false): CostModel {
  const noise = jitter > 0 ? { jitter } : spread && cal.spread ? { spread: cal.spread } : {};
  const idle = spread && cal.idle_penalty_us ? { idle_penalty_us: cal.idle_penalty_us } : {};
  const spin = spread && spinWake && cal.spin_wake_us ? { spin_wake_us: cal.spin_wake_us } : {};
  return { table: { ...cal.table_us }, per_item_us: cal.fit.per_item_us, kind: cal.kind, ...noise, ...idle, ...spin };
}

/**
 * Samples per second at batch b over samples per second at batch 1: how much batching pays, through the
 * server (`table_us`) or in the backend alone (`session_us`).
 */
/**
 * The host a calibration describes, for a simulation: its cores (the model's own two-instance figure, else
 * the cores probe's, else the count) and the main thread's work per request.
 */
export function hostFromCalibration(cal: Calibration): { cores: number; mainThreadUsPerRequest: number } {
  return { cores: cal.parallel_cores ?? cal.host.effective_cores ?? cal.host.cpus, mainThreadUsPerRequest: cal.main_thread_us_per_request ?? 0 };
}

export function batchingGain(cal: Calibration, b: number, which: 'table_us' | 'session_us' = 'table_us'): number {
  const t = cal[which] ?? {};
  const t1 = t['1'];
  const tb = t[String(b)];
  if (!t1 || !tb) throw new CalibrationError(`${cal.model}: no measurement at batch 1 and ${b}`);
  return (t1 * b) / tb;
}
