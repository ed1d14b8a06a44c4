/**
 * The step costs of the bundled generative models, fitted to the server's own steps (bench/generate/run.ts
 * --limit --write-calibration: each step timed from its start to the next one's, `fitStepCost`), one fit
 * per batching mode: a continuous step streams its tokens while the next one is formed, a request-level
 * step streams nothing, so the same batch shape costs the server more time in the first (its event loop
 * and the instance's thread share the host with the sockets' work). The simulator and the lessons charge
 * a step with the fit of the mode they run, so what they show is the bundled model's time on the server.
 * Static imports, so the browser and Node read the same file.
 */
import type { StepCost } from '../sim-step';
import type { GenBatching } from '../types';
import tinyLm from './tiny_lm_generate.json';

/** One mode's fit: the cost, and how well it explains the steps it was fitted to. */
export interface StepCostFit {
  cost: StepCost;
  steps: number;
  r2: number;
  mean_error_pct: number;
}

export interface StepCostCalibration {
  model: string;
  backend: string;
  kind: string;
  /** when and how it was fitted (the command line, the steps it saw) */
  date: string;
  /** the machine and how busy it was (a shared machine's fit is not a quiet one's) */
  host: string;
  method: string;
  /** per batching mode (continuous: in-flight; static: request-level, TensorRT-LLM's V1) */
  fits: Record<GenBatching, StepCostFit>;
}

const COST_KEYS = ['fixed_us', 'per_sequence_us', 'per_token_us', 'per_extra_call_us', 'per_context_us'] as const;
const OPTIONAL_KEYS: readonly string[] = ['per_extra_call_us', 'per_context_us'];

function validated(doc: unknown, where: string): StepCostCalibration {
  const c = doc as StepCostCalibration;
  if (typeof c?.model !== 'string' || !c.model) throw new Error(`${where}: model must name the model`);
  for (const mode of ['continuous', 'static'] as const) {
    const fit = c.fits?.[mode];
    if (!fit) throw new Error(`${where}: fits.${mode} is missing`);
    for (const k of COST_KEYS) {
      const v = fit.cost?.[k];
      if (OPTIONAL_KEYS.includes(k) && v === undefined) continue;
      if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new Error(`${where}: fits.${mode}.cost.${k} must be a number >= 0, not ${JSON.stringify(v)}`);
    }
  }
  return c;
}

export const STEP_COST_CALIBRATIONS: readonly StepCostCalibration[] = [validated(tinyLm, 'calibrations/tiny_lm_generate.json')];

/** The bundled model's fitted step costs, or undefined when it has none. */
export function stepCostCalibration(model: string, kind = 'KIND_CPU'): StepCostCalibration | undefined {
  return STEP_COST_CALIBRATIONS.find((c) => c.model === model && c.kind === kind);
}
