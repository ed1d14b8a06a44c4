/**
 * A batch for a TorchScript model: every input concatenated along dim 0 (one forward() call per batch, as
 * in Triton's pytorch backend), the outputs checked against the config and split back per request.
 * The gather/scatter is the onnxruntime backend's: one implementation of Triton's batch rules.
 */
import type { ModelConfig } from '@inferscope/core/config';
import { fromOrtType, toOrtType } from '@inferscope/core/tensor';
import type { Tensor } from '@inferscope/core';
import { gatherFeeds, outputsToFetch, scatterOutputs } from '../onnxruntime/batch-io';
import type { StubBatchCodec } from '../stub/executor';
import { readCheckedOutputs } from '../stub/outputs';

export function torchCodec(config: ModelConfig): StubBatchCodec {
  const batching = (config.max_batch_size ?? 0) > 0;
  const who = `TorchScript model '${config.name}'`;
  return {
    // forward() is a pure function of the merged batch: a failed one may be split to find the bad request
    rerunSafe: true,
    encode(batch) {
      const { feeds, rows } = gatherFeeds(config, batch);
      const inputs: Tensor[] = feeds.map((f) => ({ name: f.name, datatype: fromOrtType(f.type), shape: f.dims, data: f.data as Float32Array }));
      return { requests: [{ inputs, outputs: outputsToFetch(config, batch) }], rows };
    },
    decode(batch, rows, result) {
      if (result.responses.length !== 1) throw new Error(`${who}: the stub answered ${result.responses.length} responses for one batch`);
      const r = result.responses[0];
      if (r.error !== undefined) throw new Error(r.error);
      const total = rows.reduce((a, b) => a + b, 0);
      const tensors = readCheckedOutputs(config, r.outputs, result.body, batching ? total : undefined, who);
      const outputs = tensors.map((t) => ({ name: t.name, type: toOrtType(t.datatype), dims: t.shape, data: t.data as Float32Array }));
      return scatterOutputs(config, batch, rows, outputs);
    },
  };
}
