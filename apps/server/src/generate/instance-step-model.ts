/**
 * The step executor's model on the backend's own instance: one step's tensors go to the onnxruntime
 * backend as one request of a batch of one (its instance config is the file's step signature, max_batch_size
 * 0, generative-model.ts), so the step runs on the instance's worker thread with the session options,
 * memory reservation, restart-on-crash and execution provider every onnxruntime model gets, and the
 * event loop stays free for streaming while it computes. The step's tensors are built fresh for it, so
 * they go to the worker as they are (`owned`), not copied first.
 */
import type { Executor, InferPayload, InferResult, InstanceInfo, Tensor } from '@inferscope/core';
import type { KvStepTensor } from '@inferscope/core/kv-cache';
import type { StepModel } from './ort-step-executor';

const DATATYPE = { int64: 'INT64', float32: 'FP32' } as const;

export function instanceStepModel(executor: Executor<InferPayload, InferResult>, instance: InstanceInfo, idPrefix: string): StepModel {
  let step = 0;
  return {
    async run(inputs: readonly KvStepTensor[]) {
      const tensors: Tensor[] = inputs.map((t) => ({ name: t.name, datatype: DATATYPE[t.type], shape: t.dims, data: t.data }));
      const [result] = await executor.execute(instance, [{ id: `${idPrefix}step-${++step}`, batchSize: 1, shapeKey: '', payload: { inputs: tensors, owned: true } }]);
      if (result instanceof Error) throw result; // a RequestFailure: this step's own
      if (!Array.isArray(result)) throw new Error('the step gave no outputs');
      const out: Record<string, Float32Array> = {};
      for (const t of result) out[t.name] = t.data as Float32Array;
      return out;
    },
  };
}
