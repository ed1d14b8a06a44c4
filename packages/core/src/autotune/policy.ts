/**
 * The autotuner: a pure policy that, given a p99 target, moves a model's max_queue_delay_microseconds toward
 * the least compute per request (the largest batches) whose p99 stays within the target. The simulator and
 * the server run this same function (like the scheduler's decideBatch) on windows of statistics; the
 * windows' durations are its clock, so a test replays a recorded trace on the virtual clock.
 *
 * Each window: (1) measure — the answers at the setting held are pooled over the last windows (measure.ts);
 * (2) learn — the pooled p99 minus the queue model's prediction at the setting held is the model's error
 * (interruptions, spread), smoothed. Then, at most once per DWELL_US (the decisions settle; a move of the
 * traffic itself out of RATE_BAND is decided at once):
 * (3) predict every delay below the target (never one at or above it: the wait alone would spend it) with
 * that error; (4) choose the least compute per request predicted within target x HEADROOM, in bounded steps,
 * backing off when the pooled p99 misses; (5) hysteresis — a small move is not made, a move that would undo
 * the last change (back to or past where it started; part of the way back narrows in) is made only when
 * the traffic moved (RATE_BAND) or the pooled answers miss, and a delay
 * that missed is not grown into again at that rate (its ceiling); (6) out of reach — when no delay is
 * predicted to meet the target and the answers miss, the cheapest setting that comes closest is held, the
 * status says so with the best p99 and what limits it, and nothing changes until the rate or the target does.
 *
 * Preferred batch sizes are changed only after a proposal (the issue's first step replaced them unannounced,
 * as a bare config event): when they cut batches short of what the delay allows, the status proposes
 * clearing them with the instance time it would save, for one dwell period; the change is made at the next
 * decision if the proposal still holds, carrying the same reason, and switching off restores them
 * (README: autotuning).
 */
import type { AutotuneChangeReason } from '../events';
import type { DynamicBatchingPatch } from '../live-config/fields';
import { LIVE_LIMITS } from '../live-config/limits';
import { predict, withOffset, type BatchCost, type Prediction, type QueueModelInput } from './queue-model';
import type { AutotuneWindow } from './window';
import { instanceChange } from './instances';
import { addWindow, emptyPool, measured, MIN_SAMPLES, poolRate, rateMoved, type Measured, type Pool } from './measure';
import { limitAdvice, ms as fmt, type AutotuneLimit, type AutotuneOrigin, type AutotuneStatus } from './status';
import { proposal } from './proposal';

/** aim this far under the target: a pooled p99 still has noise, the target is a bound */
export const HEADROOM = 0.95;
/** at most one change per this much time: its effect is measured (a pool of windows) before the next */
export const DWELL_US = 5_000_000;
/** fraction of the target the delay may grow per decision */
const UP_STEP = 0.25;
/** the most a shrink may take per decision, unless the target is being missed */
const DOWN_FACTOR = 0.5;
/** what measured p99 above target does to the delay when the model would not shrink it */
const BACKOFF = 0.7;
/** smoothing of the learned offset, for a pool of FULL_WEIGHT answers or more */
const LEARN = 0.5;
const FULL_WEIGHT = 1500;
/** the smallest move worth making, as a fraction of the delay */
const DEADBAND = 0.15;
/** compute within this fraction of the least counts as the least (prefer the smaller delay) */
const COMPUTE_TIE = 0.005;
/** out of reach: p99s within this fraction of the least count as closest (prefer the cheaper) */
const P99_TIE = 0.05;
/** a predicted utilization from which a miss is the instances' (compute), not the host's spread */
const BUSY = 0.6;

const DELAY = LIVE_LIMITS.max_queue_delay_microseconds;

export interface AutotuneState {
  target_us: number;
  /** learned error of the model's p99 (measured - predicted), µs; undefined until a pool measured it */
  offset_us?: number;
  /** the answers measured at the setting held */
  pool: Pool;
  /** µs since the last change (the windows' durations add up: the policy's own clock) */
  since_change_us: number;
  /** windows left to skip after a change: they mix both settings */
  skip: number;
  /** the last delay change and the rate it was made at: undoing it needs the traffic to have moved */
  last?: { from_us: number; to_us: number; rate_per_s: number };
  /** a delay the answers missed at, and the rate: never grown into again until the rate moves */
  ceiling?: { delay_us: number; rate_per_s: number };
  /** out of reach at this rate and target: the setting held, nothing changes until either moves */
  out_of_reach?: { rate_per_s: number; target_us: number; limit: AutotuneLimit; advice: string; best_p99_us: number };
  /** instances the tuner added (it takes back only these) and the rate that made it add the last one */
  added?: number;
  added_at_rate?: number;
  /** the batching it found (autotuneStart), put back when switched off (restore.ts) */
  origin?: AutotuneOrigin;
  /** the policy's clock: the windows' durations since it started, µs */
  clock_us: number;
  /** when the proposal to clear preferred sizes was first shown (it is made one dwell later) */
  proposed_at_us?: number;
  /** the tuner cleared the preferred sizes (restore puts them back) */
  cleared_preferred?: boolean;
  /** the user set preferred sizes again after the tuner cleared them: they are the user's, never proposed again */
  preferred_kept?: boolean;
  /** what the user is told */
  status: AutotuneStatus;
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
  return { target_us: targetUs, pool: emptyPool(), since_change_us: 0, skip: 0, clock_us: 0, status: { state: 'measuring', target_us: targetUs, delay_us: 0 } };
}

const snap = (us: number) => Math.min(DELAY.max, Math.max(DELAY.min, Math.round(us / DELAY.step) * DELAY.step));
const snapDown = (us: number) => Math.min(DELAY.max, Math.max(DELAY.min, Math.floor(us / DELAY.step) * DELAY.step));

/**
 * Every limit step up to FINE_US, then steps of 5% (snapped to the limit's step), strictly below the target:
 * a delay at or above it would spend the whole target waiting (the "delay = target").
 */
const FINE_US = 10_000;
export function candidateDelays(targetUs: number): number[] {
  const top = Math.min(DELAY.max, Math.ceil(targetUs / DELAY.step) * DELAY.step - DELAY.step);
  const out: number[] = [];
  for (let d = DELAY.min; d <= Math.min(top, FINE_US); d += DELAY.step) out.push(d);
  for (let d = snap(FINE_US * 1.05); d <= top; d = Math.max(d + DELAY.step, snap(d * 1.05))) out.push(d);
  return out.length > 0 ? out : [DELAY.min];
}

/** the largest candidate at or below `us` */
const candidateAtMost = (targetUs: number, us: number) => candidateDelays(targetUs).filter((d) => d <= us).pop() ?? DELAY.min;

/**
 * The tuner's first step, before anything is measured: it records the batching it found (restored when it
 * is switched off) and keeps it, unless the delay is at or above the target (the 17 ms under a
 * 10 ms target), which goes to half the target: room for compute and queueing until the traffic is measured.
 */
export function autotuneStart(state: AutotuneState, view: BatchingView): AutotuneStep {
  const origin: AutotuneOrigin = { max_queue_delay_microseconds: view.delay_us, preferred_batch_size: [...view.preferred] };
  const started: AutotuneState = { ...state, origin, status: { state: 'measuring', target_us: state.target_us, delay_us: view.delay_us } };
  if (view.max_batch_size <= 0 || view.delay_us < state.target_us) return { state: started };
  return underTarget(started, view, 'start');
}

/**
 * A delay at or above the target (the one found at the start, a target lowered, a person's change while
 * tuned) goes at once, whatever the dwell, to half the target: the wait alone would spend the target.
 */
function underTarget(state: AutotuneState, view: BatchingView, when: string): AutotuneStep {
  const delay = candidateAtMost(state.target_us, state.target_us / 2);
  const reason: AutotuneReason = {
    why: `${when}: the delay ${fmt(view.delay_us)} is not below the target ${fmt(state.target_us)}; half the target until the traffic is measured`,
    target_us: state.target_us, measured_p99_us: 0, rate_per_s: 0, avg_batch: 0, beyond: 'nothing measured yet at this delay', predicted_compute_us: 0,
  };
  return {
    state: { ...state, pool: emptyPool(), last: { from_us: view.delay_us, to_us: delay, rate_per_s: 0 }, since_change_us: 0, skip: 0, out_of_reach: undefined, ceiling: undefined, status: { state: 'measuring', target_us: state.target_us, delay_us: delay } },
    patch: { max_queue_delay_microseconds: delay },
    decision: { old: { max_queue_delay_microseconds: view.delay_us }, new: { max_queue_delay_microseconds: delay }, reason },
  };
}

interface Candidate { delay: number; p: Prediction; p99?: number }

/** What limits a target no setting meets. */
function limitOf(model: QueueModelInput, held: Prediction, target: number): AutotuneLimit {
  if (model.cost(Math.max(1, model.samples_per_request)) >= target * HEADROOM) return 'latency';
  return !held.within || held.utilization >= BUSY ? 'compute' : 'host';
}

/** One window's step of the policy. Pure: the same state, window and view give the same step. */
export function autotuneStep(state: AutotuneState, w: AutotuneWindow, view: BatchingView, cost: BatchCost): AutotuneStep {
  if (view.max_batch_size <= 0) return { state };
  const target = state.target_us;
  const since = state.since_change_us + w.duration_us;
  const clock = state.clock_us + w.duration_us;
  // (1) the window after a change mixes both settings: it starts no pool
  const pool = state.skip > 0 ? emptyPool() : addWindow(state.pool, w);
  const rate = pool.windows.length > 0 ? poolRate(pool) : (w.arrivals * 1e6) / w.duration_us;
  const spr = w.completed > 0 && w.batch_samples > 0 ? Math.max(1, w.batch_samples / Math.max(1, w.completed)) : 1;
  const model: QueueModelInput = { rate_per_s: rate, samples_per_request: spr, max_batch_size: view.max_batch_size, preferred: view.preferred, instances: view.instances, cost };
  const m: Measured = measured(pool);
  const held = predict(model, view.delay_us);

  // (2) learn the model's error at the setting held
  let offset = state.offset_us;
  if (m.p99_us !== undefined && held.within) {
    const residual = Math.max(-target, Math.min(target, m.p99_us - held.p99_us));
    const weight = LEARN * Math.min(1, m.answered / FULL_WEIGHT);
    offset = offset === undefined ? residual : offset + weight * (residual - offset);
  }
  const off = offset ?? 0;
  const missing = m.p99_us !== undefined && m.p99_us > target;
  const bound = target * HEADROOM;
  // sizes set again after the tuner cleared them are the user's answer to its proposal: it stops proposing
  const userKept = state.preferred_kept === true || (state.cleared_preferred === true && view.preferred.length > 0 && !(view.preferred.length === 1 && view.preferred[0] >= view.max_batch_size));
  const offer = userKept ? undefined : proposal(model, view, candidateDelays(target), off, bound);
  // a proposal is shown from the first window it holds; dropped when it no longer does
  const proposedAt = offer ? state.proposed_at_us ?? clock : undefined;
  const base: AutotuneState = {
    ...state, offset_us: offset, pool, since_change_us: since, clock_us: clock, skip: Math.max(0, state.skip - 1), proposed_at_us: proposedAt,
    ...(userKept ? { preferred_kept: true, cleared_preferred: false } : {}),
  };
  const steady = (): AutotuneStatus => m.p99_us === undefined
    ? { state: 'measuring', target_us: target, delay_us: view.delay_us, ...(offer ? { proposal: offer } : {}) }
    : missing
      ? { state: 'holding', target_us: target, delay_us: view.delay_us, p99_us: m.p99_us, why: 'the target is missed: the next decision corrects it', ...(offer ? { proposal: offer } : {}) }
      : { state: 'met', target_us: target, delay_us: view.delay_us, p99_us: m.p99_us, ...(offer ? { proposal: offer } : {}) };
  const hold = (status: AutotuneStatus, extra: Partial<AutotuneState> = {}): AutotuneStep => ({ state: { ...base, ...extra, status } });

  if (view.delay_us >= target) return underTarget(base, view, 'the target or the delay changed');
  // (6) out of reach at this rate and target: hold, say so, change nothing until the rate or target moves
  const oor = state.out_of_reach;
  if (oor && oor.target_us === target && !rateMoved(rate, oor.rate_per_s) && (missing || m.p99_us === undefined)) {
    const best = m.p99_us !== undefined ? m.p99_us : oor.best_p99_us;
    return hold({ state: 'not_met', target_us: target, delay_us: view.delay_us, best_p99_us: Math.round(best), limit: oor.limit, advice: oor.advice, ...(offer ? { proposal: offer } : {}) }, { out_of_reach: { ...oor, best_p99_us: best } });
  }
  const cleared: Partial<AutotuneState> = { out_of_reach: undefined };
  // (5) one change per dwell: the last one's effect is still being measured; unless the traffic itself moved
  // (the rate left the band it was decided at, which noise does not do): a new regime is decided at once
  const newRegime = state.last !== undefined && state.last.rate_per_s > 0 && rateMoved(rate, state.last.rate_per_s) && m.answered >= MIN_SAMPLES;
  if ((since < DWELL_US && !newRegime) || state.skip > 0) {
    const status: AutotuneStatus = state.last && since < DWELL_US
      ? { state: 'holding', target_us: target, delay_us: view.delay_us, ...(m.p99_us !== undefined ? { p99_us: m.p99_us } : {}), why: `measuring the last change for ${fmt(DWELL_US - since)} more`, ...(offer ? { proposal: offer } : {}) }
      : steady();
    return hold(status, cleared);
  }

  // the proposal shown for a dwell period and still holding: made now, with its reason
  if (offer && proposedAt !== undefined && clock - proposedAt >= DWELL_US && m.p99_us !== undefined && !missing) {
    const reason = reasonOf(`proposed ${fmt(clock - proposedAt)} ago, made: ${offer.why}`, target, m, rate, w, predictionOf(predict({ ...model, preferred: [] }, view.delay_us), off));
    return {
      state: {
        ...base, ...cleared, pool: emptyPool(), skip: 1, since_change_us: 0, proposed_at_us: undefined, cleared_preferred: true, offset_us: offset,
        // batches form differently now: a delay move after this undoes nothing, and a ceiling no longer holds
        last: undefined, ceiling: undefined,
        status: { state: 'holding', target_us: target, delay_us: view.delay_us, p99_us: m.p99_us, why: 'preferred sizes cleared as proposed' },
      },
      patch: { preferred_batch_size: [] },
      decision: {
        old: { max_queue_delay_microseconds: view.delay_us, preferred_batch_size: [...view.preferred] },
        new: { max_queue_delay_microseconds: view.delay_us, preferred_batch_size: [view.max_batch_size] },
        reason,
      },
    };
  }

  // (3) predict every delay below the target, (4) choose
  const ceiling = state.ceiling && !rateMoved(rate, state.ceiling.rate_per_s) ? state.ceiling.delay_us : Infinity;
  // a delay that with one request's compute fills the target can never meet it (the delay = target
  // on a host where a batch of one takes most of it): only the smallest delay stays a candidate then
  const alone = cost(spr);
  const candidates: Candidate[] = candidateDelays(target).filter((d) => d === DELAY.min || (d < ceiling && d + alone < target)).map((d) => {
    const p = predict(model, d);
    return { delay: d, p, p99: withOffset(p, off) };
  });
  const fits = candidates.filter((c) => c.p99 !== undefined && c.p99 <= bound);
  const heldP99 = withOffset(held, off);
  const late = missing || heldP99 === undefined || heldP99 > target;

  // instances, when the host allows more and no delay fits (or the rate fell after adding): instances.ts
  const inst = instanceChange({
    model, max_instances: view.max_instances, added: state.added ?? 0, added_at_rate: state.added_at_rate ?? 0,
    candidates: candidates.map((c) => c.delay), offset_us: off, bound_us: bound, late, fitsNow: fits.length > 0, missing, held_us: view.delay_us,
  });
  if (inst) {
    const added = (state.added ?? 0) + inst.delta;
    const reason = reasonOf(inst.why, target, m, rate, w, { within: true, p99: inst.predicted_p99_us, compute: inst.predicted_compute_us });
    const patch = inst.delay_us !== view.delay_us ? { max_queue_delay_microseconds: inst.delay_us } : undefined;
    // a new instance needs a window to start and the next mixes both counts: two windows are not judged
    const next: AutotuneState = {
      ...base, ...cleared, pool: emptyPool(), skip: 2, since_change_us: 0, added, added_at_rate: inst.delta > 0 ? rate : state.added_at_rate, ceiling: undefined,
      last: { from_us: view.delay_us, to_us: inst.delay_us, rate_per_s: rate },
      status: { state: 'holding', target_us: target, delay_us: inst.delay_us, why: inst.why },
    };
    return { state: next, patch, decision: { old: { max_queue_delay_microseconds: view.delay_us }, new: { max_queue_delay_microseconds: inst.delay_us }, reason }, instances_delta: inst.delta };
  }

  if (fits.length === 0 && late) {
    // nothing is predicted to meet the target: judge it on answers, not on the model alone
    if (m.p99_us === undefined) return hold(steady(), cleared);
    // the cheapest setting that comes closest; with every prediction beyond the model (saturated) the
    // batch is full at any delay, so the smallest delay (it only adds wait)
    const reach = candidates.filter((c) => c.p99 !== undefined);
    let pick = candidates[0];
    if (reach.length > 0) {
      const least = Math.min(...reach.map((c) => c.p99!));
      const close = reach.filter((c) => c.p99! <= least * (1 + P99_TIE));
      pick = close.reduce((a, b) => (b.p.compute_per_request_us < a.p.compute_per_request_us * (1 - COMPUTE_TIE) ? b : a));
    }
    const limit = limitOf(model, held, target);
    const advice = limitAdvice(limit, view.max_instances === undefined || view.instances < view.max_instances);
    // measured at the setting held; the status follows the measurement at the one it moves to
    const best = m.p99_us;
    const out_of_reach = { rate_per_s: rate, target_us: target, limit, advice, best_p99_us: best };
    const status: AutotuneStatus = { state: 'not_met', target_us: target, delay_us: pick.delay, best_p99_us: Math.round(best), limit, advice, ...(offer ? { proposal: offer } : {}) };
    if (pick.delay === view.delay_us) return hold(status, { out_of_reach });
    const reason = reasonOf(`target not met: best p99 ≈ ${fmt(best)}, ${advice}`, target, m, rate, w, predictionOf(pick.p, off));
    return {
      state: { ...base, out_of_reach, pool: emptyPool(), skip: 1, since_change_us: 0, last: { from_us: view.delay_us, to_us: pick.delay, rate_per_s: rate }, status },
      patch: { max_queue_delay_microseconds: pick.delay },
      decision: { old: { max_queue_delay_microseconds: view.delay_us }, new: { max_queue_delay_microseconds: pick.delay }, reason },
    };
  }

  let next: number;
  let why: string;
  if (fits.length > 0) {
    const least = Math.min(...fits.map((c) => c.p.compute_per_request_us));
    next = fits.find((c) => c.p.compute_per_request_us <= least * (1 + COMPUTE_TIE))!.delay;
    why = 'least compute per request predicted within target';
  } else {
    // predicted within the target but not the headroom, answers not missing: stay
    return hold(steady(), cleared);
  }
  let ceilingNext = state.ceiling;
  if (missing && next >= view.delay_us && view.delay_us > DELAY.min) {
    next = snapDown(view.delay_us * BACKOFF);
    why = 'measured p99 above target: back off';
  }
  if (missing && view.delay_us > DELAY.min) ceilingNext = { delay_us: view.delay_us, rate_per_s: rate };
  next = Math.min(next, snapDown(view.delay_us + Math.max(DELAY.step, target * UP_STEP)));
  if (!late) next = Math.max(next, snap(view.delay_us * DOWN_FACTOR));
  next = Math.min(snap(next), candidateAtMost(target, next));

  // (5) hysteresis: small moves wait unless the target is being missed; the last change is undone only
  // when the traffic moved or the answers miss
  const move = Math.abs(next - view.delay_us);
  const small = move < Math.max(DELAY.step, DEADBAND * view.delay_us);
  const up = next > view.delay_us;
  const last = state.last;
  // a move part of the way back (strictly between where the last change started and ended) narrows in on
  // the setting, as bisection does; back to or past where it started is the flip the issue saw
  const partWay = last !== undefined && next > Math.min(last.from_us, last.to_us) && next < Math.max(last.from_us, last.to_us);
  const undoes = last !== undefined && last.to_us !== last.from_us && up !== last.to_us > last.from_us && !partWay && !rateMoved(rate, last.rate_per_s);
  if (move === 0 || (small && !missing)) return hold(steady(), { ...cleared, ceiling: ceilingNext });
  if (undoes && !(missing && !up)) {
    return hold({ state: 'holding', target_us: target, delay_us: view.delay_us, ...(m.p99_us !== undefined ? { p99_us: m.p99_us } : {}), why: 'a move back would undo the last change while the traffic is unchanged', ...(offer ? { proposal: offer } : {}) }, { ...cleared, ceiling: ceilingNext });
  }
  const at = predict(model, next);
  const reason = reasonOf(why, target, m, rate, w, predictionOf(at, off));
  return {
    state: {
      ...base, ...cleared, ceiling: ceilingNext, pool: emptyPool(), skip: 1, since_change_us: 0, last: { from_us: view.delay_us, to_us: next, rate_per_s: rate },
      status: { state: 'holding', target_us: target, delay_us: next, ...(m.p99_us !== undefined ? { p99_us: m.p99_us } : {}), why, ...(offer ? { proposal: offer } : {}) },
    },
    patch: { max_queue_delay_microseconds: next },
    decision: { old: { max_queue_delay_microseconds: view.delay_us }, new: { max_queue_delay_microseconds: next }, reason },
  };
}

type Predicted = { within: true; p99: number; compute: number } | { within: false; beyond: string; compute: number };

function predictionOf(p: Prediction, off: number): Predicted {
  const p99 = withOffset(p, off);
  return p99 === undefined ? { within: false, beyond: p.within ? 'beyond the queue model' : p.beyond, compute: p.compute_per_request_us } : { within: true, p99, compute: p.compute_per_request_us };
}

function reasonOf(why: string, target: number, m: Measured, rate: number, w: AutotuneWindow, p: Predicted): AutotuneReason {
  return {
    why, target_us: target, measured_p99_us: Math.round(m.p99_us ?? 0), rate_per_s: Math.round(rate),
    avg_batch: w.batches > 0 ? Math.round((w.batch_samples / w.batches) * 100) / 100 : 0,
    ...(p.within ? { predicted_p99_us: Math.round(p.p99) } : { beyond: p.beyond }),
    predicted_compute_us: Math.round(p.compute * 10) / 10,
  };
}
