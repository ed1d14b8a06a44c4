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
  /** instances sharing the queue */
  instances: number;
  cost: BatchCost;
}

export interface Prediction {
  /** mean samples per batch */
  batch: number;
  /** fraction of time each instance is busy */
  utilization: number;
  /** compute per request, µs (instance busy time / requests) */
  compute_per_request_us: number;
  /** predicted p99, µs, without the learned offset (Infinity: the instance cannot keep up) */
  p99_us: number;
}

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
  // a batch of one request's samples plus what arrives while the oldest waits
  const byDelay = Math.min(max, spr + samplesPerUs * delayUs);
  let n = byDelay;
  for (let i = 0; i < 30; i++) n = Math.max(byDelay, Math.min(max, samplesPerUs * m.cost(n)));
  const s = m.cost(n);
  const rho = (samplesPerUs * s) / n;
  const computePerRequest = (s / n) * spr;
  if (rho >= 1) return { batch: n, utilization: rho, compute_per_request_us: computePerRequest, p99_us: Infinity };
  // the oldest request waits the delay, or until the batch is full
  const fillUs = samplesPerUs > 0 ? (max - spr) / samplesPerUs : Infinity;
  const wait = Math.min(delayUs, fillUs);
  const p99 = wait + s + QUEUE_WEIGHT * s * queueFactor(rho, Math.max(1, m.instances));
  return { batch: n, utilization: rho, compute_per_request_us: computePerRequest, p99_us: p99 };
}
