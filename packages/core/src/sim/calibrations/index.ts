/**
 * The calibrations shipped with the bundled models, written by `inferscope calibrate` on a 2-core CPU
 * machine (see each file's `host` and `method`). A new calibrated model is one JSON file here plus one line
 * below (static imports, so the browser bundle and Node read the same figures).
 */
import { costFromCalibration, validateCalibration, type Calibration } from '../calibration-cost';
import type { CostModel } from '../cost-model';
import mlp from './mlp_classifier.json';
import cnn from './cnn_classifier.json';
import text from './text_encoder.json';
import mlpTorch from './mlp_classifier_torch.json';

export const BUNDLED_CALIBRATIONS: readonly Calibration[] = [mlp, cnn, text, mlpTorch].map((c, i) => validateCalibration(c, `bundled calibration #${i + 1}`));

export function bundledCalibration(model: string, backend?: string, kind = 'KIND_CPU'): Calibration | undefined {
  return BUNDLED_CALIBRATIONS.find((c) => c.model === model && (backend === undefined || c.backend === backend) && c.kind === kind);
}

/** The calibrated cost model of a bundled model, or undefined when it has none. */
export function calibratedCost(model: string, opts: { backend?: string; kind?: string; jitter?: number } = {}): CostModel | undefined {
  const cal = bundledCalibration(model, opts.backend, opts.kind);
  return cal ? costFromCalibration(cal, opts.jitter ?? 0) : undefined;
}
