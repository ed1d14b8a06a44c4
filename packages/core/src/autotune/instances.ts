/**
 * The autotuner's instance count: when no delay the limits allow keeps the predicted p99 within the target
 * with the instances running, one more instance (up to the host's cores: instances x one intra-op thread
 * must not exceed them) shares the rate, which shortens the wait behind a busy instance that no delay can
 * shorten. The simulator shows it on the MLP's rush (9000/s): one instance's p99 stays above 1.3 ms at every
 * delay, two reach 0.9 ms at 500 µs for about the same compute per request. The trigger is a miss the delay
 * cannot cure: none fits by the model, or the measured answers keep missing. The tuner takes back only what
 * it added, and only once the rate has fallen to half of what made it add (hysteresis: a rate that needed
 * two instances must not flap between one and two), and when one fewer is predicted well within target.
 */
import { predict, withOffset, type QueueModelInput } from './queue-model';

/** one fewer instance must be predicted under this share of the target (room for the learned offset's error) */
const REMOVE_ROOM = 0.7;
/**
 * an instance cures the wait behind a busy instance, not the host's interruptions: below this predicted
 * utilization (at the delay held) a miss is not the queue's, and another instance would only cost
 */
const BUSY = 0.2;
/** the offset carried to one fewer instance grows at most this much */
const MAX_CARRY = 3;
/**
 * one more instance is a jump the offset was not learned at, and its effect is measured only a dwell later
 * (policy.ts): its delay aims this much further under the bound
 */
const ADD_ROOM = 0.85;
/** the rate must fall to this share of the one that made the tuner add */
const REMOVE_RATE = 0.5;

export interface InstanceChange {
  /** +1 or -1 */
  delta: 1 | -1;
  /** the delay to run with the new count */
  delay_us: number;
  why: string;
  predicted_p99_us: number;
  predicted_compute_us: number;
}

export interface InstanceInput {
  model: QueueModelInput;
  /** the most instances the tuner may run; undefined: it never changes the count */
  max_instances?: number;
  /** instances the tuner added so far, and the rate that made it add the last one */
  added: number;
  added_at_rate: number;
  candidates: readonly number[];
  /** the learned offset of the model's p99, µs */
  offset_us: number;
  /** the predicted-p99 bound a choice must meet (target x headroom) */
  bound_us: number;
  /** the target is being missed (measured, or predicted at the delay held) */
  late: boolean;
  /** the delay held through the window */
  held_us: number;
  /** some delay fits with the instances running (predicted) */
  fitsNow: boolean;
  /** more than the allowed share of recent answers were slower than the target (measured) */
  missing: boolean;
}

/**
 * The delay of least compute predicted within the bound with `instances`, if any. The learned offset was
 * learned at the count running; it is mostly the host's interruptions, which weigh with how busy an
 * instance is (queue-model.ts), so it is carried over in proportion to the utilization at each delay.
 */
function bestWith(i: InstanceInput, instances: number, bound: number) {
  let best: { delay: number; p99: number; compute: number } | undefined;
  for (const d of i.candidates) {
    const p = predict({ ...i.model, instances }, d);
    const now = predict(i.model, d).utilization;
    const carried = now > 0 && Number.isFinite(now) ? Math.min(MAX_CARRY, p.utilization / now) : 1;
    // beyond the model's reach with this count: no number to choose by
    const p99 = withOffset(p, Math.max(0, i.offset_us) * carried + Math.min(0, i.offset_us));
    if (p99 !== undefined && p99 <= bound && (!best || p.compute_per_request_us < best.compute * 0.98)) best = { delay: d, p99, compute: p.compute_per_request_us };
  }
  return best;
}

export function instanceChange(i: InstanceInput): InstanceChange | undefined {
  const n = i.model.instances;
  if (i.max_instances === undefined) return undefined;
  // the model may say a delay fits while the measured answers keep missing (what it omits, the host's
  // interruptions, weighs most on a busy instance): the measurement decides, as it does for the delay
  const busy = predict(i.model, i.held_us).utilization >= BUSY;
  if (busy && (i.missing || (!i.fitsNow && i.late)) && n < i.max_instances) {
    const more = bestWith(i, n + 1, i.bound_us * ADD_ROOM);
    if (more) return { delta: 1, delay_us: more.delay, why: `no delay meets the target with ${n} instance${n === 1 ? '' : 's'}: one more`, predicted_p99_us: more.p99, predicted_compute_us: more.compute };
  }
  // the rate fell by half: the miss of the delay held (chosen for the rush) is no reason to keep the
  // instance when one fewer is predicted well within target at its own delay
  if (i.added > 0 && n > 1 && i.model.rate_per_s <= i.added_at_rate * REMOVE_RATE) {
    const fewer = bestWith(i, n - 1, i.bound_us * REMOVE_ROOM);
    if (fewer) return { delta: -1, delay_us: fewer.delay, why: 'the rate fell: one instance fewer meets the target', predicted_p99_us: fewer.p99, predicted_compute_us: fewer.compute };
  }
  return undefined;
}
