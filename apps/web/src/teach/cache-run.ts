/**
 * The "two models, one accelerator" lesson's second part: core's response cache at the door of one heavy
 * model (core's simulator with `responseCache`: a hit is answered before any queue and never batched), the
 * same seeded arrivals with half the inputs repeating earlier ones or every input unique, the cache off
 * and on. The figures: the instance's compute time (busy time), hits and misses, the median answer.
 */
import { percentile, simulate } from '@inferscope/core/sim';
import { HEAVY_COST, acceleratorConfig } from './accelerator-run';
import { roundRate, servedPerS } from './rates';
import { cachedRuns } from './run-cache';

export type Inputs = 'repeated' | 'unique';
export const INPUTS: Inputs[] = ['repeated', 'unique'];
/** the share of inputs that repeat an earlier one in the 'repeated' traffic */
export const REPEATS = 0.5;
/** modelled µs of one cache lookup (a hash of the input's bytes and a byte compare) */
export const LOOKUP_US = 10;
const SEED = 1;
const DURATION_S = 4;
/** a light load: a fifth of what the instance serves in batches of one, so batches stay single and compute follows the misses */
export const CACHE_RATE = roundRate(0.2 * servedPerS(HEAVY_COST, 1));

export interface CacheRun {
  inputs: Inputs;
  cache: boolean;
  /** the instance's busy time over the run (Σ batch compute) */
  computeUs: number;
  batches: number;
  hits: number;
  misses: number;
  sent: number;
  answered: number;
  /** the median answer, from arrival (a hit: its lookup) */
  p50Us: number;
}

export function cacheRows(): CacheRun[] {
  return INPUTS.flatMap((i) => [runCache(i, false), runCache(i, true)]);
}

/** a run, cached per setting */
export const runCache = cachedRuns((inputs: Inputs, cache: boolean) => `${inputs}/${cache}`, simulateCache);

/** a fresh run (no cache) */
export function simulateCache(inputs: Inputs, cache: boolean): CacheRun {
  const { events, summary } = simulate({
    scenario: { name: 'repeated inputs', seed: SEED, phases: [{ type: 'poisson', rate: CACHE_RATE, duration_s: DURATION_S }] },
    configs: { ...acceleratorConfig('vision_net', 1), response_cache: { enable: true } },
    cost: HEAVY_COST, cores: 1, seed: SEED,
    repeats: inputs === 'repeated' ? REPEATS : 0,
    ...(cache ? { responseCache: { size_bytes: 1 << 20, lookup_us: LOOKUP_US } } : {}),
  });
  let computeUs = 0, batches = 0, hits = 0, misses = 0;
  const arrived = new Map<string, number>();
  const answers: number[] = [];
  for (const e of events) {
    if (e.type === 'batch.completed') {
      computeUs += e.compute_us;
      batches++;
    } else if (e.type === 'request.cache') {
      if (e.outcome === 'hit') {
        hits++;
        answers.push(e.total_us);
      } else misses++;
    } else if (e.type === 'request.queued') arrived.set(e.request_id, e.t - (cache ? LOOKUP_US : 0));
    else if (e.type === 'request.completed') answers.push(e.t - (arrived.get(e.request_id) ?? e.t));
  }
  return {
    inputs, cache, computeUs, batches, hits, misses, sent: summary.requests.sent, answered: answers.length,
    p50Us: percentile(Float64Array.from(answers).sort(), 0.5),
  };
}

/** the figures the verdict and its claim read, from the rows */
export function cacheFigures(rows: CacheRun[], inputs: Inputs, cache: boolean) {
  const at = (i: Inputs, c: boolean) => rows.find((r) => r.inputs === i && r.cache === c)!;
  const [rOff, rOn, uOff, uOn] = [at('repeated', false), at('repeated', true), at('unique', false), at('unique', true)];
  return {
    now: at(inputs, cache), rOff, rOn, uOff, uOn,
    figures: {
      hitRate: rOn.hits / rOn.sent,
      // compute with the cache over compute without, for the repeated inputs and the unique ones
      computeRepeated: rOn.computeUs / rOff.computeUs,
      computeUnique: uOn.computeUs / uOff.computeUs,
      uniqueHits: uOn.hits,
      // what a unique input pays: the median answer with the cache minus without
      lookupCostUs: uOn.p50Us - uOff.p50Us,
    },
  };
}
