/**
 * validateEnsembleSteps: the ensemble rules that need the configs of the models an ensemble runs
 * (Triton's ValidateEnsembleConfig / ValidateTensorMapping in ensemble_utils.cc): every step model exists,
 * batch sizes fit, every required step input is fed, mappings name real tensors, and each ensemble tensor
 * has one data type and a compatible shape wherever it is used. Pure: the caller supplies the step configs
 * (normalised), e.g. from the repository it loaded.
 */
import type { ConfigIssue } from './errors';
import type { DataType, ModelConfig } from './types';

interface TensorInfo {
  model: string;
  type: DataType;
  dims: number[];
  /** dims with the batch dimension (-1) in front when the model batches */
  fullDims: number[];
}

const info = (model: string, batching: boolean, type: DataType | undefined, dims: number[] | undefined): TensorInfo => ({
  model, type: type ?? 'TYPE_INVALID', dims: dims ?? [], fullDims: batching ? [-1, ...(dims ?? [])] : [...(dims ?? [])],
});

const sameDims = (a: number[], b: number[]) => a.length === b.length && a.every((d, i) => d === b[i] || d === -1 || b[i] === -1);
const dimsText = (d: number[]) => `[${d.join(',')}]`;

/** Type and shape agree, or the message saying how they differ (shapes also match batch-expanded). */
function consistency(a: TensorInfo, b: TensorInfo, prefix: string): string | undefined {
  if (a.type !== b.type) {
    return `${prefix}inconsistent data type: ${a.type} is inferred from model ${a.model} while ${b.type} is inferred from model ${b.model}`;
  }
  if (!sameDims(a.dims, b.dims) && !sameDims(a.fullDims, b.fullDims)) {
    return `${prefix}inconsistent shape: ${dimsText(a.fullDims)} is inferred from model ${a.model} while ${dimsText(b.fullDims)} is inferred from model ${b.model}`;
  }
  return undefined;
}

export function validateEnsembleSteps(
  ensemble: ModelConfig,
  stepConfig: (modelName: string) => ModelConfig | undefined,
): ConfigIssue[] {
  if (!ensemble.ensemble_scheduling) return [];
  const name = ensemble.name ?? '';
  const batching = (ensemble.max_batch_size ?? 0) > 0;
  const steps = ensemble.ensemble_scheduling.step ?? [];
  const fail = (message: string, path: string, hint?: string): ConfigIssue[] => [{ message, path, ...(hint ? { hint } : {}) }];

  const missing = [...new Set(steps.map((s) => s.model_name ?? '').filter((m) => !stepConfig(m)))];
  if (missing.length > 0) {
    return fail(`ensemble ${name} contains models that are not available: ${missing.join(', ')}`, 'ensemble_scheduling',
      'every step model must be in the repository (and load) before the ensemble can');
  }

  const tensors = new Map<string, TensorInfo>();
  for (const io of [...(ensemble.input ?? []), ...(ensemble.output ?? [])]) {
    tensors.set(io.name ?? '', info(name, batching, io.data_type, io.reshape ? io.reshape.shape : io.dims));
  }

  for (let i = 0; i < steps.length; i++) {
    const step = steps[i]!;
    const path = `ensemble_scheduling.step[${i}]`;
    const stepName = step.model_name ?? '';
    const model = stepConfig(stepName)!;
    const stepMax = model.max_batch_size ?? 0;
    const stepBatching = stepMax > 0;
    if (stepMax !== 0 && stepMax < (ensemble.max_batch_size ?? 0)) {
      return fail(
        `ensemble ${name} allows maximum batch size ${ensemble.max_batch_size}, but it contains model ${stepName} which only allows maximum batch size to be ${stepMax}`,
        'max_batch_size');
    }
    const inputMap = step.input_map ?? {};
    const outputMap = step.output_map ?? {};
    const inputs = new Map((model.input ?? []).map((io) => [io.name ?? '', io]));
    const outputs = new Map((model.output ?? []).map((io) => [io.name ?? '', io]));

    for (const [modelInput, tensor] of Object.entries(inputMap)) {
      if (!inputs.has(modelInput)) {
        return fail(`in ensemble ${name}, ensemble tensor ${tensor} is mapping to non-existing input ${modelInput} in model ${stepName}`,
          `${path}.input_map`, `inputs of ${stepName}: ${[...inputs.keys()].join(', ')}`);
      }
    }
    for (const [inputName, io] of inputs) {
      const tensor = inputMap[inputName];
      if (tensor === undefined) {
        if (io.optional) continue;
        return fail(`in ensemble ${name}, input ${inputName} in model ${stepName} is not mapped to any ensemble tensors`, `${path}.input_map`);
      }
      const here = info(stepName, stepBatching, io.data_type, io.dims);
      const known = tensors.get(tensor);
      if (known) {
        const problem = consistency(known, here, `in ensemble ${name}, ensemble tensor ${tensor}: `);
        if (problem) return fail(problem, `${path}.input_map`);
      } else {
        tensors.set(tensor, here);
      }
    }
    for (const [modelOutput, tensor] of Object.entries(outputMap)) {
      const io = outputs.get(modelOutput);
      if (!io) {
        return fail(`in ensemble ${name}, ensemble tensor ${tensor} is mapped from non-existing output ${modelOutput} in model ${stepName}`,
          `${path}.output_map`, `outputs of ${stepName}: ${[...outputs.keys()].join(', ')}`);
      }
      const here = info(stepName, stepBatching, io.data_type, io.dims);
      const known = tensors.get(tensor);
      if (known) {
        const problem = consistency(known, here, `in ensemble ${name}, ensemble tensor ${tensor}: `);
        if (problem) return fail(problem, `${path}.output_map`);
      } else {
        tensors.set(tensor, here);
      }
    }
    const targets = Object.values(outputMap);
    const dup = targets.find((t, k) => targets.indexOf(t) !== k);
    if (dup !== undefined) {
      return fail(`in ensemble ${name}, multiple outputs in model ${stepName} are mapped to the same ensemble tensor ${dup}`, `${path}.output_map`);
    }
  }
  // Triton makes an ensemble decoupled when a step is, and then refuses its response cache as any
  // decoupled model's (model_config_utils.cc's words)
  if (ensemble.response_cache?.enable && steps.some((s) => stepConfig(s.model_name ?? '')!.model_transaction_policy?.decoupled)) {
    return fail(
      `Response Cache does not currently support model ${name} with 'decoupled' transaction policy. Please disable the response cache.`,
      'response_cache.enable',
    );
  }
  return [];
}
