/**
 * Ensemble rules within one config (Triton's ValidateEnsembleSchedulingConfig and BuildEnsembleGraph):
 * the platform, what an ensemble may not have, and the data flow from the ensemble inputs through the
 * steps to its outputs. Checks against the step models' own configs need the whole repository and
 * belong to the repository loader.
 */
import { nameOf, type Rule } from './issues';
import { PLATFORM } from '../platforms';
import type { ModelConfig } from '../types';

interface TensorNode {
  name: string;
  isOutput: boolean;
  ready: boolean;
  prev: TensorNode[];
  next: TensorNode[];
}

/** The data-flow graph of ensemble tensors, or the first structural problem of a step. */
function buildGraph(config: ModelConfig): { graph: Map<string, TensorNode> } | { error: string; path: string } {
  const name = nameOf(config);
  const graph = new Map<string, TensorNode>();
  const node = (tensor: string, isOutput: boolean) => {
    let n = graph.get(tensor);
    if (!n) graph.set(tensor, (n = { name: tensor, isOutput, ready: false, prev: [], next: [] }));
    return n;
  };
  const steps = config.ensemble_scheduling?.step ?? [];
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i]!;
    const path = `ensemble_scheduling.step[${i}]`;
    if (!step.model_name) return { error: `must specify 'model_name' in step ${i} of ensemble '${name}'`, path };
    const inputMap = Object.entries(step.input_map ?? {});
    const outputMap = Object.entries(step.output_map ?? {});
    if (inputMap.length === 0) return { error: `must specify 'input_map' in step ${i} of ensemble '${name}'`, path };
    if (outputMap.length === 0) return { error: `must specify 'output_map' in step ${i} of ensemble '${name}'`, path };

    const produced: TensorNode[] = [];
    for (const [, tensor] of outputMap) {
      const existing = graph.get(tensor);
      if (existing?.isOutput) {
        return { error: `ensemble tensor '${tensor}' can appear in an output map only once for ensemble '${name}' step ${i}`, path };
      }
      const n = existing ?? node(tensor, true);
      n.isOutput = true;
      produced.push(n);
    }
    // input_map keys are unique by construction (a map), so "mapped to multiple tensors" cannot occur here.
    for (const [, tensor] of inputMap) {
      const source = node(tensor, false);
      for (const out of produced) {
        out.prev.push(source);
        source.next.push(out);
      }
    }
  }
  return { graph };
}

export const validateEnsemble: Rule = (config, issues) => {
  const name = nameOf(config);
  if (!config.ensemble_scheduling) {
    if (config.platform === PLATFORM.ensemble) {
      issues.add(`ensemble scheduling must be set for ensemble ${name} whose platform is ${PLATFORM.ensemble}`, 'platform',
        'add ensemble_scheduling { step [ ... ] } naming the models to run and how tensors flow between them');
    }
    return;
  }
  if (config.platform !== PLATFORM.ensemble) {
    issues.add(`ensemble scheduling cannot be set for model '${name}' whose platform is not ${PLATFORM.ensemble}`,
      'ensemble_scheduling', 'set platform: "ensemble" (and no backend), or remove ensemble_scheduling');
    return;
  }
  if ((config.instance_group ?? []).length !== 0) {
    issues.add(`instance group should not be specified for ensemble '${name}'`, 'instance_group',
      'an ensemble has no instances of its own; set instance_group on the models it runs');
    return;
  }
  if (config.optimization) {
    issues.add(`optimization should not be specified for ensemble '${name}'`, 'optimization');
    return;
  }
  if ((config.model_warmup ?? []).length !== 0) {
    issues.add(`model_warmup can not be specified for ensemble '${name}'`, 'model_warmup');
    return;
  }
  if ((config.ensemble_scheduling.step ?? []).length === 0) {
    issues.add(`must specify 'step' for ensemble '${name}'`, 'ensemble_scheduling');
    return;
  }
  const built = buildGraph(config);
  if ('error' in built) {
    issues.add(built.error, built.path);
    return;
  }
  const { graph } = built;

  // Propagate readiness from the ensemble inputs: a tensor is ready once everything its step reads is.
  const queue: TensorNode[] = [];
  for (const input of config.input ?? []) {
    const n = graph.get(input.name ?? '');
    if (!n) {
      issues.add(`ensemble input '${input.name}' for ensemble ${name}' is not used`, 'input',
        `map it to a step input with input_map { key: "<step model input>" value: "${input.name}" }`);
      return;
    }
    n.ready = true;
    queue.push(n);
  }
  while (queue.length > 0) {
    const ready = queue.shift()!;
    for (const next of ready.next) {
      if (next.ready) continue;
      next.ready = next.prev.every((p) => p.ready);
      if (next.ready) queue.push(next);
    }
  }

  const outputs = new Set<string>();
  for (const output of config.output ?? []) {
    const n = graph.get(output.name ?? '');
    if (!n) {
      issues.add(`ensemble output '${output.name}' for ensemble ${name}' is not used`, 'output',
        `write it from a step with output_map { key: "<step model output>" value: "${output.name}" }`);
      return;
    }
    if (!n.ready) {
      issues.add(notWrittenMessage(n, name), 'output');
      return;
    }
    outputs.add(n.name);
  }
  for (const [tensor, n] of graph) {
    if (outputs.has(tensor)) continue;
    if (!n.ready || n.next.length === 0) {
      issues.add(`ensemble tensor '${tensor}' is unused in ensemble '${name}'`, 'ensemble_scheduling',
        'every tensor a step writes must be read by a later step or be an ensemble output');
      return;
    }
  }
};

/** "output 'X' ... is not written", naming the first unconnected tensor it depends on, as Triton does. */
function notWrittenMessage(output: TensorNode, model: string): string {
  let message = `output '${output.name}' for ensemble '${model}' is not written`;
  let last = output;
  const seen = new Set<string>();
  let prev: TensorNode[] | undefined = output.prev;
  while (prev && prev.length > 0) {
    const nodes: TensorNode[] = prev;
    prev = undefined;
    for (const n of nodes) {
      if (!n.ready && !seen.has(n.name)) {
        seen.add(n.name);
        last = n;
        prev = n.prev;
        break;
      }
    }
  }
  if (last.name !== output.name) message += `: at least one of its depending tensors, '${last.name}', is not connected`;
  return message;
}
