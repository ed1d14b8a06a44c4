/**
 * The data-flow plan of one ensemble, derived once from its (validated) config: which step reads which
 * ensemble tensors and writes which, and, per set of requested outputs, which steps are needed at all.
 * Like Triton's EnsembleContext, a request that asks for some outputs only runs the steps those outputs
 * depend on (backward traversal from the requested outputs). Pure: no I/O, no scheduler.
 */
import type { ModelConfig } from '@inferscope/core/config/types.ts';

export interface StepPlan {
  index: number;
  model: string;
  /** undefined = the latest READY version (Triton's model_version -1) */
  version?: string;
  /** [step model input, ensemble tensor] */
  inputs: Array<[string, string]>;
  /** [step model output, ensemble tensor] */
  outputs: Array<[string, string]>;
}

export interface EnsemblePlan {
  name: string;
  steps: StepPlan[];
  /** ensemble inputs, config order */
  inputs: string[];
  /** ensemble outputs, config order (a response without requested outputs carries these) */
  outputs: string[];
  /** ensemble tensor -> the step that writes it */
  producer: Map<string, number>;
  /** pruning per set of requested outputs, worked out once (see prunedFor) */
  pruned: Map<string, Pruned>;
}

export interface Pruned {
  /** the steps to run, ascending */
  steps: number[];
  /** tensors a step to run reads or the client wants: a step is asked only for the outputs in here */
  used: Set<string>;
}

export function buildPlan(config: ModelConfig): EnsemblePlan {
  const steps: StepPlan[] = (config.ensemble_scheduling?.step ?? []).map((s, index) => {
    const v = s.model_version ?? -1;
    return {
      index,
      model: s.model_name ?? '',
      ...(v > 0 ? { version: String(v) } : {}),
      inputs: Object.entries(s.input_map ?? {}),
      outputs: Object.entries(s.output_map ?? {}),
    };
  });
  const producer = new Map<string, number>();
  for (const s of steps) for (const [, tensor] of s.outputs) producer.set(tensor, s.index);
  return {
    name: config.name ?? '',
    steps,
    inputs: (config.input ?? []).map((i) => i.name ?? ''),
    outputs: (config.output ?? []).map((o) => o.name ?? ''),
    producer,
    pruned: new Map(),
  };
}

/** neededSteps and the tensors they use for `wanted`, cached on the plan (a handful of output sets). */
export function prunedFor(plan: EnsemblePlan, wanted: readonly string[]): Pruned {
  const key = wanted.join('\0');
  let hit = plan.pruned.get(key);
  if (!hit) {
    const steps = neededSteps(plan, wanted);
    const used = new Set<string>(wanted);
    for (const i of steps) for (const [, t] of plan.steps[i]!.inputs) used.add(t);
    hit = { steps, used };
    if (plan.pruned.size < 64) plan.pruned.set(key, hit); // clients choose the output lists: keep it bounded
  }
  return hit;
}

/** The models an ensemble runs (each once, step order). */
export function composingModels(config: ModelConfig): string[] {
  return [...new Set((config.ensemble_scheduling?.step ?? []).map((s) => s.model_name ?? '').filter((m) => m !== ''))];
}

/**
 * The steps needed to produce `wanted` (ensemble output names), ascending: a step is needed when a tensor
 * it writes is wanted or read by a needed step.
 */
export function neededSteps(plan: EnsemblePlan, wanted: readonly string[]): number[] {
  const needed = new Set<number>();
  const todo = [...wanted];
  const seen = new Set<string>();
  while (todo.length > 0) {
    const tensor = todo.pop()!;
    if (seen.has(tensor)) continue;
    seen.add(tensor);
    const step = plan.producer.get(tensor);
    if (step === undefined || needed.has(step)) continue;
    needed.add(step);
    for (const [, input] of plan.steps[step]!.inputs) todo.push(input);
  }
  return [...needed].sort((a, b) => a - b);
}
