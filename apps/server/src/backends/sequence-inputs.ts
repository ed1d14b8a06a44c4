/**
 * What a stateful model's backend is fed (Triton's sequence batcher overrides, seen from the backend): the
 * control inputs (START, END, READY, CORRID) and the implicit state inputs of every batch position, and the
 * state outputs it must return. Core's sequence batcher describes each position (`SequenceStep`); this
 * adapter turns the description into tensors for any backend, so onnxruntime, PyTorch and python models
 * are fed alike:
 *
 * - the backend loads with a config whose `input` / `output` also list the control and state tensors
 *   (clients never send them: the client-facing config is unchanged);
 * - each request gets its position's control and state tensors; a null request (READY false) gets zeros of
 *   a real request's shapes (Triton's CopyAsNull);
 * - the state outputs are fetched with the client's outputs, written to `step.stateOut` for the next step,
 *   and never returned to the client.
 */
import type { InferPayload, InferResult } from '@inferscope/core';
import type { ModelConfig, ModelInput, ModelOutput } from '@inferscope/core/config';
import { sequencePolicy, splitStateOutputs, stepInputs, zeroedInputs, type StateSpec } from '@inferscope/core/scheduler';
import type { ComputePhases, Executor, InstanceInfo, SchedulerRequest } from '@inferscope/core/scheduler';

type Req = SchedulerRequest<InferPayload>;

/** The config the backend loads: the model's inputs and outputs plus the control and state tensors. */
export function withSequenceTensors(config: ModelConfig): ModelConfig {
  const sb = config.sequence_batching;
  if (!sb) return config;
  const inputs: ModelInput[] = [...(config.input ?? [])];
  const outputs: ModelOutput[] = [...(config.output ?? [])];
  const has = (list: { name?: string }[], name: string) => list.some((x) => x.name === name);
  for (const c of sequencePolicy(config).controls.bools) {
    if (!has(inputs, c.name)) inputs.push({ name: c.name, data_type: c.dataType as ModelInput['data_type'], dims: [1] });
  }
  const corrid = sequencePolicy(config).controls.corrid;
  if (corrid && !has(inputs, corrid.name)) inputs.push({ name: corrid.name, data_type: corrid.dataType as ModelInput['data_type'], dims: [1] });
  for (const s of sb.state ?? []) {
    if (s.input_name && !has(inputs, s.input_name)) inputs.push({ name: s.input_name, data_type: s.data_type, dims: s.dims });
    if (s.output_name && !has(outputs, s.output_name)) outputs.push({ name: s.output_name, data_type: s.data_type, dims: s.dims });
  }
  return { ...config, input: inputs, output: outputs };
}

/** The request the backend runs for one position of a sequence batch. */
function fed(r: Req, batched: boolean, stateOutputs: readonly string[]): Req {
  const step = r.step;
  if (!step) return r;
  const own = step.ready ? r.payload.inputs : zeroedInputs(r.payload.inputs);
  const asked = r.payload.outputs;
  const outputs = asked && asked.length > 0 ? [...asked, ...stateOutputs.filter((n) => !asked.includes(n))] : asked;
  return { ...r, payload: { ...r.payload, inputs: [...own, ...stepInputs(step, batched)], outputs } };
}

/** `inner` (the backend's executor) fed the sequence tensors of each batch position. */
export function sequenceExecutor(inner: Executor<InferPayload, InferResult>, config: ModelConfig): Executor<InferPayload, InferResult> {
  const specs: readonly StateSpec[] = sequencePolicy(config).states;
  const stateOutputs = specs.map((s) => s.outputName);
  const batched = (config.max_batch_size ?? 0) > 0;
  const back = (batch: readonly Req[], results: InferResult[]): InferResult[] =>
    results.map((result, i) => {
      const step = batch[i]!.step;
      if (!step || !Array.isArray(result)) return result;
      const { state, rest } = splitStateOutputs(result, specs);
      if (step.ready) step.stateOut = state;
      return rest;
    });
  return {
    startInstance: inner.startInstance && ((info: InstanceInfo) => inner.startInstance!(info)),
    stopInstance: inner.stopInstance && ((info: InstanceInfo) => inner.stopInstance!(info)),
    execute: async (info, batch) => back(batch, await inner.execute(info, batch.map((r) => fed(r, batched, stateOutputs)))),
    executeWithCallback: inner.executeWithCallback && ((info: InstanceInfo, batch: readonly Req[], done: (error: unknown, results?: InferResult[], phases?: ComputePhases) => void) => {
      inner.executeWithCallback!(info, batch.map((r) => fed(r, batched, stateOutputs)), (err, results, phases) => {
        if (err || !results) done(err, results, phases);
        else done(null, back(batch, results), phases);
      });
    }),
  };
}
