/**
 * The autotuner: a pure policy that, given a p99 target, moves a model's max_queue_delay_microseconds toward
 * the least compute per request (the largest batches) whose p99 stays within the target, once per window
 * of statistics. The simulator and the server run this same function (like the scheduler's decideBatch).
 *
 * Each step: (1) learn — the measured p99 minus the queue model's prediction at the delay held through
 * the window is the model's error (interruptions, spread), smoothed; (2) predict — for every delay the live
 * limits allow up to the target, the model's p99 at the measured rate plus that error; (3) choose — among
 * delays predicted within target x HEADROOM the one with the least predicted compute per request (the
 * smallest such delay when several tie: a longer wait that batches nothing more only adds latency), or,
 * when none fits, the one with the least predicted p99 (best effort, failing no request); (4) correct —
 * measured p99 above the target while the model would hold or grow backs off multiplicatively (AIMD's
 * decrease); growth is additive, at most UP_STEP of the target per window; a shrink at most halves unless
 * the target is missed (measured, or predicted at the delay held), when it goes where the model says;
 * (5) hysteresis — a move smaller than 15% of the delay (at least two limit steps) is not made unless the
 * target is being missed, and the window after a change is not judged (it mixes both settings).
 *
 * Preferred batch sizes cut a batch short of what the delay allows, so the tuner's first decision clears
 * them (Triton's default: max_batch_size) and the delay alone sets the batch.
 */
import type { AutotuneChangeReason } from '../events';
import type { DynamicBatchingPatch } from '../live-config/fields';
import { LIVE_LIMITS } from '../live-config/limits';
import { predict, type BatchCost } from './queue-model';
import type { AutotuneWindow } from './window';
import { instanceChange } from './instances';

/** aim this far under the target: a window's p99 is noisy, the target is a bound */
export const HEADROOM = 0.9;
/** fraction of the target the delay may grow per window */
const UP_STEP = 0.2;
/** the most a shrink may take per window */
const DOWN_FACTOR = 0.5;
/** what measured p99 above target does to the delay when the model would not shrink it */
const BACKOFF = 0.7;
/** smoothing of the learned offset, for a window of FULL_WEIGHT answers or more */
const LEARN = 0.3;
/** a window's p99 over fewer answers is noisier (the 99th percentile of 300 is the 3rd largest): it weighs less */
const FULL_WEIGHT = 3000;
/** the smallest move worth making, as a fraction of the delay */
const DEADBAND = 0.15;
/** fewer answers than this in a window: its p99 is not a measurement */
const MIN_SAMPLES = 30;
/**
 * How much of the miss count a window keeps from the ones before: one window's p99 at 300/s is its 3rd
 * slowest answer, and the host's interruptions come in clusters, so it swings several-fold from window to
 * window while the day's p99 holds. The share of answers over the target adds up across windows instead.
 */
const MEMORY = 0.75;
/** the target is missed when more than this share of recent answers were slower */
const MISS_SHARE = 0.01;
/** compute within this fraction of the least counts as the least (prefer the smaller delay) */
const COMPUTE_TIE = 0.02;

const DELAY = LIVE_LIMITS.max_queue_delay_microseconds;

export interface AutotuneState {
  target_us: number;
  /** learned error of the model's p99 (measured - predicted), µs; undefined until a window measured it */
  offset_us?: number;
  /** windows left before the next one is judged */
  skip: number;
  /** answers over the target and all answers, over recent windows (decayed): the measured miss rate */
  over: number;
  answered: number;
  /** instances the tuner added (it takes back only these) and the rate that made it add the last one */
  added?: number;
  added_at_rate?: number;
}

/** The model's batching as it is now. */
export interface BatchingView {
  delay_us: number;
  preferred: readonly number[];
  max_batch_size: number;
  instances: number;
  /** the most instances the tuner may run (the host's cores); absent: it never changes the count */
  max_instances?: number;
}

/** the reason a decision carries (the config.changed event's `reason`) */
export type AutotuneReason = AutotuneChangeReason;

export interface AutotuneDecision {
  old: { max_queue_delay_microseconds: number; preferred_batch_size?: readonly number[] };
  new: { max_queue_delay_microseconds: number; preferred_batch_size?: readonly number[] };
  reason: AutotuneReason;
}

export interface AutotuneStep {
  state: AutotuneState;
  patch?: DynamicBatchingPatch;
  decision?: AutotuneDecision;
  /** the instance count to set (the first instance group's count + this), see instances.ts */
  instances_delta?: 1 | -1;
}

export function initialAutotuneState(targetUs: number): AutotuneState {
  return { target_us: targetUs, skip: 0, over: 0, answered: 0 };
}

const snap = (us: number) => Math.min(DELAY.max, Math.max(DELAY.min, Math.round(us / DELAY.step) * DELAY.step));

/** every limit step up to FINE_US, then steps of 5% (snapped to the limit's step), up to the target */
const FINE_US = 10_000;
export function candidateDelays(targetUs: number): number[] {
  const top = Math.min(DELAY.max, Math.max(targetUs, DELAY.step));
  const out: number[] = [];
  for (let d = DELAY.min; d <= Math.min(top, FINE_US); d += DELAY.step) out.push(d);
  for (let d = snap(FINE_US * 1.05); d <= top; d = Math.max(d + DELAY.step, snap(d * 1.05))) out.push(d);
  return out;
}

function noPreferred(view: BatchingView): boolean {
  return view.preferred.length === 0 || (view.preferred.length === 1 && view.preferred[0] >= view.max_batch_size);
}

/**
 * The tuner's first change, before anything is measured: the smallest delay (latency is safest there; the
 * delay then grows by measurement) and no preferred sizes. Undefined when batching is already so.
 */
export function autotuneStart(state: AutotuneState, view: BatchingView): AutotuneStep {
  if (view.max_batch_size <= 0) return { state };
  const clearPreferred = !noPreferred(view);
  if (!clearPreferred && view.delay_us === DELAY.min) return { state };
  const patch: DynamicBatchingPatch = { max_queue_delay_microseconds: DELAY.min, ...(clearPreferred ? { preferred_batch_size: [] } : {}) };
  const decision: AutotuneDecision = {
    old: { max_queue_delay_microseconds: view.delay_us, ...(clearPreferred ? { preferred_batch_size: [...view.preferred] } : {}) },
    new: { max_queue_delay_microseconds: DELAY.min, ...(clearPreferred ? { preferred_batch_size: [view.max_batch_size] } : {}) },
    reason: { why: 'start: the smallest delay until the traffic is measured', target_us: state.target_us, measured_p99_us: 0, rate_per_s: 0, avg_batch: 0, predicted_p99_us: -1, predicted_compute_us: -1 },
  };
  return { state, patch, decision };
}

/** One window's step of the policy. Pure: the same state, window and view give the same step. */
export function autotuneStep(state: AutotuneState, w: AutotuneWindow, view: BatchingView, cost: BatchCost): AutotuneStep {
  const clearPreferred = !noPreferred(view) && view.max_batch_size > 0;
  if (view.max_batch_size <= 0) return { state };
  if (state.skip > 0 && !clearPreferred) return { state: { ...state, skip: state.skip - 1 } };

  const rate = (w.arrivals * 1e6) / w.duration_us;
  const spr = w.completed > 0 && w.batch_samples > 0 ? Math.max(1, w.batch_samples / Math.max(1, w.completed)) : 1;
  const model = { rate_per_s: rate, samples_per_request: spr, max_batch_size: view.max_batch_size, instances: view.instances, cost };
  const target = state.target_us;
  const measured = w.completed >= MIN_SAMPLES ? w.p99_us : undefined;
  const over = state.over * MEMORY + w.over_target;
  const answered = state.answered * MEMORY + w.completed;

  // (1) learn the model's error at the delay held through this window
  let offset = state.offset_us;
  const held = predict(model, view.delay_us);
  if (measured !== undefined && Number.isFinite(held.p99_us) && state.skip === 0) {
    const residual = Math.max(-target, Math.min(target, measured - held.p99_us));
    const weight = LEARN * Math.min(1, w.completed / FULL_WEIGHT);
    offset = offset === undefined ? residual : offset + weight * (residual - offset);
  }
  const off = offset ?? 0;

  // (2)+(3) predict every delay up to the target, choose
  const candidates = candidateDelays(target).map((d) => {
    const p = predict(model, d);
    return { delay: d, p, p99: p.p99_us + off };
  });
  const fits = candidates.filter((c) => c.p99 <= target * HEADROOM);
  let want: (typeof candidates)[number];
  let why: string;
  if (fits.length > 0) {
    const least = Math.min(...fits.map((c) => c.p.compute_per_request_us));
    want = fits.find((c) => c.p.compute_per_request_us <= least * (1 + COMPUTE_TIE))!;
    why = 'least compute per request predicted within target';
  } else {
    want = candidates.reduce((a, b) => (b.p99 < a.p99 ? b : a));
    why = 'target out of reach: least predicted p99';
  }
  let next = want.delay;

  // (6) instances, when the host allows more and no delay fits (or the rate fell after adding): instances.ts
  const missingNow = answered >= MIN_SAMPLES && over > MISS_SHARE * answered;
  const lateNow = missingNow || held.p99_us + off > target;
  const inst = instanceChange({
    model, max_instances: view.max_instances, added: state.added ?? 0, added_at_rate: state.added_at_rate ?? 0,
    candidates: candidates.map((c) => c.delay), offset_us: off, bound_us: target * HEADROOM, late: lateNow, fitsNow: fits.length > 0, missing: missingNow, held_us: view.delay_us,
  });
  if (inst) {
    const added = (state.added ?? 0) + inst.delta;
    const decision: AutotuneDecision = {
      old: { max_queue_delay_microseconds: view.delay_us },
      new: { max_queue_delay_microseconds: inst.delay_us },
      reason: {
        why: inst.why, target_us: target, measured_p99_us: measured ?? 0, rate_per_s: Math.round(rate),
        avg_batch: w.batches > 0 ? Math.round((w.batch_samples / w.batches) * 100) / 100 : 0,
        predicted_p99_us: Math.round(inst.predicted_p99_us), predicted_compute_us: Math.round(inst.predicted_compute_us * 10) / 10,
      },
    };
    const patch: DynamicBatchingPatch | undefined = inst.delay_us !== view.delay_us || clearPreferred
      ? { max_queue_delay_microseconds: inst.delay_us, ...(clearPreferred ? { preferred_batch_size: [] } : {}) }
      : undefined;
    // a new instance needs a window to start and the next mixes both counts: two windows are not judged
    const nextState: AutotuneState = {
      ...state, offset_us: offset, skip: 2, over: 0, answered: 0, added, added_at_rate: inst.delta > 0 ? rate : state.added_at_rate,
    };
    return { state: nextState, patch, decision, instances_delta: inst.delta };
  }

  // (4) correct with the measurement, bounded steps
  const missing = answered >= MIN_SAMPLES && over > MISS_SHARE * answered;
  if (missing && fits.length > 0 && next >= view.delay_us && view.delay_us > 0) {
    next = snap(view.delay_us * BACKOFF);
    why = 'measured p99 above target: back off';
  }
  // missing the target, measured or predicted at the delay held: go where the model says at once
  const heldP99 = held.p99_us + off;
  const late = missing || heldP99 > target;
  // out of reach, the model's least p99 is better than where we are: no bound (it does not depend on the offset)
  if (!(late && fits.length === 0)) next = Math.min(next, snap(view.delay_us + Math.max(DELAY.step, target * UP_STEP)));
  if (!late) next = Math.max(next, snap(view.delay_us * DOWN_FACTOR));
  next = snap(next);

  // (5) hysteresis: small moves wait, unless the target is being missed
  const move = Math.abs(next - view.delay_us);
  const small = move < Math.max(2 * DELAY.step, DEADBAND * view.delay_us);
  const delayChanges = move > 0 && (!small || (late && (next < view.delay_us || fits.length === 0)));
  const nextState: AutotuneState = { ...state, offset_us: offset, over, answered, skip: state.skip > 0 ? state.skip - 1 : 0 };
  if (!delayChanges && !clearPreferred) return { state: nextState };

  const delay = delayChanges ? next : view.delay_us;
  const at = predict(model, delay);
  const patch: DynamicBatchingPatch = { max_queue_delay_microseconds: delay, ...(clearPreferred ? { preferred_batch_size: [] } : {}) };
  const decision: AutotuneDecision = {
    old: { max_queue_delay_microseconds: view.delay_us, ...(clearPreferred ? { preferred_batch_size: [...view.preferred] } : {}) },
    new: { max_queue_delay_microseconds: delay, ...(clearPreferred ? { preferred_batch_size: [view.max_batch_size] } : {}) },
    reason: {
      why: delayChanges ? why : 'preferred sizes cut batches short of what the delay allows',
      target_us: target,
      measured_p99_us: measured ?? 0,
      rate_per_s: Math.round(rate),
      avg_batch: w.batches > 0 ? Math.round((w.batch_samples / w.batches) * 100) / 100 : 0,
      predicted_p99_us: Number.isFinite(at.p99_us) ? Math.round(at.p99_us + off) : -1,
      predicted_compute_us: Math.round(at.compute_per_request_us * 10) / 10,
    },
  };
  // the misses counted so far were the old setting's
  return { state: { ...nextState, skip: 1, over: 0, answered: 0 }, patch, decision };
}
