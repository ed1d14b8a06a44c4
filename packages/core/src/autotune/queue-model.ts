/**
 * The autotuner's model of one dynamically batched model: for an arrival rate and a max_queue_delay, the
 * batch size it forms and the p99 it predicts, from the cost of a batch per size (a calibration's table,
 * or what the model measured while serving).
 *
 * Why this shape: with no preferred sizes a batch leaves when its oldest request waited the delay D (or it
 * is full), so at rate λ it holds about 1 + λD requests; but while the instance computes, the next batch
 * keeps growing, so under load the batch is at least what arrives during one batch's compute (the fixed
 * point n = λ·s(n)). The instance is then busy ρ = λ·s(n)/n of the time. A request's p99 is its wait for the
 * batch (at most D, or the time to fill it), its batch's compute, and the wait behind a running batch,
 * which grows like ρ/(1-ρ) (the queueing term: short delays push ρ toward 1, where latency explodes). What
 * this omits (the spread of compute, interruptions of the host) the policy learns as an offset from the
 * measured p99.
 */

/** µs one batch of `n` samples takes */
export type BatchCost = (n: number) => number;

export interface QueueModelInput {
  /** requests per second */
  rate_per_s: number;
  /** samples per request (mean) */
  samples_per_request: number;
  max_batch_size: number;
  /**
   * the preferred batch sizes (absent or empty: none): a batch that reaches one while an instance is free
   * leaves at once, and none grows past the largest (decide.ts)
   */
  preferred?: readonly number[];
  /** instances sharing the queue */
  instances: number;
  cost: BatchCost;
}

interface PredictionBase {
  /** mean samples per batch */
  batch: number;
  /** fraction of time each instance is busy */
  utilization: number;
  /** compute per request, µs (instance busy time / requests) */
  compute_per_request_us: number;
  /** one batch's compute, µs: no p99 is ever below it */
  batch_us: number;
}

/**
 * A prediction within the model's reach carries a p99; one beyond it says why instead of a number. The
 * class of the "-1" and "4.19 s": the ρ/(1-ρ) term goes to infinity as ρ nears 1 (and past it the
 * instance cannot keep up at all), so near saturation the model's p99 is an artefact of one term, not a
 * latency anyone will measure; showing it, or choosing by it, is wrong.
 */
export type Prediction = PredictionBase & ({ within: true; p99_us: number } | { within: false; beyond: string });

/**
 * The highest utilization the model answers for: above it the queueing term is steeper than any measured
 * window can confirm (at 0.95 it is already 19 batches' compute); the prediction says "beyond".
 */
export const RHO_REACH = 0.95;

/**
 * How strongly the wait behind a busy instance grows with utilization: fitted to the simulator's MLP runs at
 * 9000/s (delays 300-1500 µs), where the measured p99 is least near 700-800 µs; the host's interruptions,
 * which a batch at high utilization takes longer to recover from, are most of it.
 */
const QUEUE_WEIGHT = 4;

/**
 * The wait behind busy instances, in units of one batch's compute: ρ/(1-ρ) for one instance (M/M/1), and
 * Sakasegawa's approximation of M/M/c, ρ^(√(2(c+1))-1) / (c(1-ρ)), for c instances sharing the queue
 * (a request waits only when all are busy). For c = 1 the two are the same.
 */
export function queueFactor(rho: number, c: number): number {
  return rho ** (Math.sqrt(2 * (c + 1)) - 1) / (c * (1 - rho));
}

export function predict(m: QueueModelInput, delayUs: number): Prediction {
  const perInstance = m.rate_per_s / Math.max(1, m.instances);
  const samplesPerUs = (perInstance * Math.max(1, m.samples_per_request)) / 1e6;
  const max = Math.max(1, m.max_batch_size);
  const spr = Math.max(1, m.samples_per_request);
  const preferred = (m.preferred ?? []).filter((p) => p > 0 && p <= max);
  // none grows past the largest preferred size; while an instance is free one leaves at the first it reaches
  const cap = preferred.length > 0 ? Math.max(spr, Math.max(...preferred)) : max;
  const firstPreferred = preferred.length > 0 ? Math.max(spr, Math.min(...preferred)) : Infinity;
  // a batch of one request's samples plus what arrives while the oldest waits
  const byDelay = Math.min(cap, firstPreferred, spr + samplesPerUs * delayUs);
  let n = byDelay;
  for (let i = 0; i < 30; i++) n = Math.max(byDelay, Math.min(cap, samplesPerUs * m.cost(n)));
  const s = m.cost(n);
  const rho = (samplesPerUs * s) / n;
  const base: PredictionBase = { batch: n, utilization: rho, compute_per_request_us: (s / n) * spr, batch_us: s };
  if (!(rho < RHO_REACH)) {
    const beyond = rho >= 1
      ? `the instance${m.instances > 1 ? 's' : ''} cannot keep up (${Math.round(rho * 100)}% busy)`
      : `the instance${m.instances > 1 ? 's' : ''} would be ${Math.round(rho * 100)}% busy: beyond the queue model`;
    return { ...base, within: false, beyond };
  }
  // the oldest request waits the delay, or until the batch is full (or reaches the first preferred size)
  const fillUs = samplesPerUs > 0 ? (Math.min(cap, firstPreferred) - spr) / samplesPerUs : Infinity;
  const wait = Math.max(0, Math.min(delayUs, fillUs));
  const p99 = wait + s + QUEUE_WEIGHT * s * queueFactor(rho, Math.max(1, m.instances));
  return { ...base, within: true, p99_us: p99 };
}

/**
 * A prediction with the learned offset (measured - predicted at the setting held): never below one batch's
 * compute plus the wait (a negative offset learned elsewhere must not predict an impossible latency, the
 * issue's "-1"), undefined beyond the model's reach.
 */
export function withOffset(p: Prediction, offsetUs: number): number | undefined {
  if (!p.within) return undefined;
  return Math.max(p.batch_us, p.p99_us + offsetUs);
}
