/**
 * startLoad's `scenario` (a preset name or scenario JSON) plus its rate/duration/seed/concurrency
 * overrides -> core's arrival plan for the target model.
 */
import { findPreset, PRESETS, scenarioToArrivals, validateScenario, type ArrivalPlan } from '@inferscope/core/load/index.ts';
import type { StartLoadRequest } from '../live/types';

/** longest schedule we precompute: protects memory from rate x duration typos */
const MAX_ARRIVALS = 2_000_000;

export function resolveScenario(req: StartLoadRequest): ArrivalPlan {
  const scenario =
    typeof req.scenario === 'string'
      ? findPreset(req.scenario) ??
        (() => {
          throw new Error(`unknown scenario preset '${req.scenario}' (presets: ${PRESETS.map((p) => p.name).join(', ')})`);
        })()
      : validateScenario(req.scenario);
  const plan = scenarioToArrivals(scenario, {
    rate: req.rate,
    duration_s: req.duration,
    seed: req.seed,
    concurrency: req.concurrency,
    model: req.model,
  });
  if (plan.arrivals.length > MAX_ARRIVALS) throw new Error(`scenario makes ${plan.arrivals.length} requests, more than the ${MAX_ARRIVALS} a run may hold`);
  return plan;
}
