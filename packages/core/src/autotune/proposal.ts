/**
 * The tuner's proposal to clear preferred batch sizes (policy.ts shows it in the status for a dwell before
 * it makes it): preferred sizes send a batch as soon as it reaches one while an instance is free, which
 * can cut batches far short of what the delay would form, and each cut batch costs its fixed compute.
 */
import { predict, withOffset, type Prediction, type QueueModelInput } from './queue-model';
import { ms as fmt, type AutotuneProposal } from './status';

/** a proposal to clear preferred sizes is made when it saves at least this share of instance time */
const PROPOSAL_GAIN = 0.05;

/** The least compute per request among the delays predicted within the bound, and its delay. */
function cheapest(model: QueueModelInput, delays: readonly number[], off: number, bound: number): { delay: number; p: Prediction; p99: number } | undefined {
  let best: { delay: number; p: Prediction; p99: number } | undefined;
  for (const d of delays) {
    const p = predict(model, d);
    const p99 = withOffset(p, off);
    if (p99 !== undefined && p99 <= bound && (!best || p.compute_per_request_us < best.p.compute_per_request_us)) best = { delay: d, p, p99 };
  }
  return best;
}

/**
 * The proposal to clear preferred sizes, when they cut batches short enough to cost instance time: the
 * cheapest delay within the bound without them against the cheapest with them (at the delay held when none
 * fits with them).
 */
export function proposal(model: QueueModelInput, view: { delay_us: number; preferred: readonly number[]; max_batch_size: number }, delays: readonly number[], off: number, bound: number): AutotuneProposal | undefined {
  if (view.preferred.length === 0 || (view.preferred.length === 1 && view.preferred[0] >= view.max_batch_size)) return undefined;
  const now = cheapest(model, delays, off, bound)?.p ?? predict(model, view.delay_us);
  const without = cheapest({ ...model, preferred: [] }, delays, off, bound);
  if (!without || !(without.p.compute_per_request_us < now.compute_per_request_us * (1 - PROPOSAL_GAIN))) return undefined;
  const round = (v: number) => Math.round(v * 10) / 10;
  return {
    preferred_batch_size: [],
    why: `preferred sizes [${view.preferred.join(',')}] cut batches at ${round(now.batch)}; without them a delay of ${fmt(without.delay)} forms batches of ${round(without.p.batch)} and saves ${round(now.compute_per_request_us - without.p.compute_per_request_us)} µs of instance time a request within the target`,
    compute_now_us: round(now.compute_per_request_us),
    compute_proposed_us: round(without.p.compute_per_request_us),
  };
}
