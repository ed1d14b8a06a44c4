/**
 * A/B compare in teaching mode: the same scenario and seed (identical arrivals) simulated twice with core's
 * `simulate`, once per max_queue_delay, reported in the same shape as the live server's A/B.
 */
import { simulate } from '@inferscope/core/sim/index.ts';
import type { AbSide } from '../controls/ab-compare';
import { toCoreScenario } from './engine';
import type { SimScenario } from './sim-types';

/** Seconds of simulated traffic per side: enough for stable percentiles, quick enough for a click. */
const AB_SECONDS = 0.5;

export function simulateAb(base: SimScenario, delayA: number, delayB: number): [AbSide, AbSide] {
  const scenario: SimScenario = { ...base, traffic: { ...base.traffic, durationUs: AB_SECONDS * 1_000_000 } };
  const side = (label: string, delay: number): AbSide => {
    const models = scenario.models.map((m) => ({
      ...m.config, name: m.name,
      dynamic_batching: m.config.dynamic_batching ? { ...m.config.dynamic_batching, max_queue_delay_microseconds: delay } : m.config.dynamic_batching,
    }));
    const { summary } = simulate({
      scenario: toCoreScenario(scenario), configs: models, seed: scenario.seed, record: false,
      cost: Object.fromEntries(scenario.models.map((m) => [m.name, { fixed_us: m.cost.fixedUs, per_item_us: m.cost.perItemUs, jitter: 0.05 }])),
    });
    return {
      label: `${label} (delay ${delay} µs)`, throughput: summary.throughput_per_s, p50Us: summary.latency_us.p50, p99Us: summary.latency_us.p99,
      avgBatch: summary.avg_batch_size, rejected: summary.requests.rejected, completed: summary.requests.completed,
    };
  };
  return [side('A', delayA), side('B', delayB)];
}
