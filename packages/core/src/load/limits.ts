/**
 * How much load one run may ask for, checked before anything is sent (or built). The figures are what the
 * server and one generator can carry, measured on the 2-core reference host (FINDINGS.md): InferScope
 * answers ~11k req/s to an external wrk client on the bundled MLP, and one Node generator sends ~8k req/s.
 * - max_rate_per_s 20,000: about twice what the server carries here (room for a faster host); above it the
 *   generator itself falls behind its schedule, the figures are the client's, and the server only queues.
 * - max_requests_per_run 5,000,000: with the stream generated lazily a run holds O(in flight) memory
 *   whatever its length; the total bounds what else a run costs: a recording of it (~60 bytes an
 *   arrival, 300 MB) and how long one run may occupy the server (an hour at ~1,400/s).
 * - max_in_flight 10,000: an open loop keeps sending whatever the answers do; when the server falls that
 *   far behind, the generator skips arrivals (counted as `skipped`) instead of holding an unbounded
 *   backlog of sockets and bodies on both sides. Closed-loop concurrency is bounded by the same figure.
 * All three are configurable (LoadController options; the CLI's --max-* flags).
 */
import { nominalRate, type Scenario } from './scenario';

export interface LoadLimits {
  max_rate_per_s: number;
  max_requests_per_run: number;
  max_in_flight: number;
}

export const DEFAULT_LOAD_LIMITS: Readonly<LoadLimits> = Object.freeze({
  max_rate_per_s: 20_000,
  max_requests_per_run: 5_000_000,
  max_in_flight: 10_000,
});

export interface PlanSize {
  /** expected open-loop requests (exact for constant, uniform-ramp and replay phases; the mean for random ones) */
  expected_requests: number;
  /** the busiest phase's rate, requests/s (scenario.ts nominalRate: a burst counts burst_size/burst_every_s) */
  peak_rate_per_s: number;
  /** the most closed-loop clients of any phase */
  max_concurrency: number;
}

export function planSize(s: Scenario): PlanSize {
  let expected = 0;
  let conc = 0;
  for (const p of s.phases) {
    const d = p.duration_s;
    switch (p.type) {
      case 'constant':
        if (p.rate > 0) expected += Math.ceil(d * p.rate);
        break;
      case 'poisson':
        expected += d * p.rate;
        break;
      case 'ramp':
        expected += (d * (p.from + p.to)) / 2;
        break;
      case 'burst':
        expected += d * p.rate + (p.burst_every_s > 0 ? Math.ceil(d / p.burst_every_s) : 0) * p.burst_size;
        break;
      case 'replay':
        expected += p.arrivals.length;
        break;
      case 'closed':
        conc = Math.max(conc, p.concurrency);
        break;
      case 'idle':
        break;
    }
  }
  return { expected_requests: Math.ceil(expected), peak_rate_per_s: nominalRate(s), max_concurrency: conc };
}

export class LoadLimitError extends Error {
  override name = 'LoadLimitError';
}

/** Throws a LoadLimitError that says which limit and why, or returns. */
export function checkPlanSize(size: PlanSize, limits: LoadLimits = DEFAULT_LOAD_LIMITS): void {
  const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
  if (size.peak_rate_per_s > limits.max_rate_per_s)
    throw new LoadLimitError(`the scenario's peak rate is ${fmt(size.peak_rate_per_s)} requests/s, above the ${fmt(limits.max_rate_per_s)}/s one load run may send (the generator could not keep that schedule, and the server here carries about half of it)`);
  if (size.expected_requests > limits.max_requests_per_run)
    throw new LoadLimitError(`the scenario makes about ${fmt(size.expected_requests)} requests, more than the ${fmt(limits.max_requests_per_run)} one load run may send: lower the rate or the duration`);
  if (size.max_concurrency > limits.max_in_flight)
    throw new LoadLimitError(`closed-loop concurrency ${fmt(size.max_concurrency)} is above the ${fmt(limits.max_in_flight)} requests one run may keep in flight`);
}
