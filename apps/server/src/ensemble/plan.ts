/**
 * The data-flow plan of one ensemble, derived once from its (validated) config: which step reads which
 * ensemble tensors and writes which, and, per set of requested outputs, which steps are needed at all.
 * Like Triton's EnsembleContext, a request that asks for some outputs only runs the steps those outputs
 * depend on (backward traversal from the requested outputs). Pure: no I/O, no scheduler.
 */
import type { ModelConfig } from '@inferscope/core/config';

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
 * A cycle in the graph of ensembles through `start` (an ensemble that runs, directly or through other
 * ensembles, itself), as the path [start, ..., start]; undefined when there is none. `composingOf` gives
 * the models an ensemble runs (undefined or empty for a model that is not an ensemble). Iterative, with
 * each model visited once: a graph of any depth costs no stack.
 */
export function ensembleCycle(start: string, composingOf: (model: string) => readonly string[] | undefined): string[] | undefined {
  const visited = new Set<string>([start]);
  // depth-first, keeping the path: each frame is a model and the index of its next composing model
  const path: Array<{ model: string; next: number; children: readonly string[] }> = [{ model: start, next: 0, children: composingOf(start) ?? [] }];
  while (path.length > 0) {
    const top = path[path.length - 1]!;
    if (top.next >= top.children.length) {
      path.pop();
      continue;
    }
    const child = top.children[top.next++]!;
    if (child === start) return [...path.map((f) => f.model), start];
    if (visited.has(child)) continue;
    visited.add(child);
    path.push({ model: child, next: 0, children: composingOf(child) ?? [] });
  }
  return undefined;
}

/** Triton's kind of refusal of a cycle, naming it: "circular dependency between ensembles: a -> b -> a". */
export function cycleMessage(cycle: readonly string[]): string {
  return `circular dependency between ensembles: ${cycle.join(' -> ')}`;
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
