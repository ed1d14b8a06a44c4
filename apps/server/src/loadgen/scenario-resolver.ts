/**
 * startLoad's `scenario` (a preset name or scenario JSON) plus its rate/duration/seed/concurrency
 * overrides -> the scenario and overrides a generator job carries. Nothing is generated here: the plan is
 * a lazy stream built where it is sent (generator/job.ts), and its size is checked against the limits
 * before a thread is even started.
 */
import { checkPlanSize, findPreset, planArrivals, PRESETS, validateScenario, type LoadLimits, type Scenario, type ScenarioOverrides } from '@inferscope/core/load';
import type { StartLoadRequest } from '../control/types';

export function resolveScenario(req: StartLoadRequest, limits: LoadLimits): { scenario: Scenario; overrides: ScenarioOverrides; name: string; seed: number } {
  const scenario =
    typeof req.scenario === 'string'
      ? findPreset(req.scenario) ??
        (() => {
          throw new Error(`unknown scenario preset '${req.scenario}' (presets: ${PRESETS.map((p) => p.name).join(', ')})`);
        })()
      : validateScenario(req.scenario);
  const overrides: ScenarioOverrides = { rate: req.rate, duration_s: req.duration, seed: req.seed, concurrency: req.concurrency, model: req.model };
  const plan = planArrivals(scenario, overrides);
  checkPlanSize(plan.size, limits);
  return { scenario, overrides, name: scenario.name, seed: plan.seed };
}
