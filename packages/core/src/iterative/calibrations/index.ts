/**
 * The step costs of the bundled generative models, fitted to the model's own steps (bench/generate/run.ts
 * --limit --write-calibration: the server's step batches replayed back-to-back on onnxruntime, then
 * `fitStepCost`). The simulator and the lessons charge a step with these instead of an invented cost, so
 * what they show is the bundled model's time. Static imports, so the browser and Node read the same file.
 */
import type { StepCost } from '../sim-step';
import tinyLm from './tiny_lm_generate.json';

export interface StepCostCalibration {
  model: string;
  backend: string;
  kind: string;
  /** when and how it was fitted (the command line, the steps it saw) */
  date: string;
  /** the machine and how busy it was (a shared machine's fit is not a quiet one's) */
  host: string;
  method: string;
  cost: StepCost;
  steps: number;
  r2: number;
  mean_error_pct: number;
}

function validated(doc: unknown, where: string): StepCostCalibration {
  const c = doc as StepCostCalibration;
  for (const k of ['fixed_us', 'per_sequence_us', 'per_token_us'] as const) {
    const v = c?.cost?.[k];
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new Error(`${where}: cost.${k} must be a number >= 0, not ${JSON.stringify(v)}`);
  }
  if (typeof c.model !== 'string' || !c.model) throw new Error(`${where}: model must name the model`);
  return c;
}

export const STEP_COST_CALIBRATIONS: readonly StepCostCalibration[] = [validated(tinyLm, 'calibrations/tiny_lm_generate.json')];

/** The bundled model's fitted step cost, or undefined when it has none. */
export function stepCostCalibration(model: string, kind = 'KIND_CPU'): StepCostCalibration | undefined {
  return STEP_COST_CALIBRATIONS.find((c) => c.model === model && c.kind === kind);
}
