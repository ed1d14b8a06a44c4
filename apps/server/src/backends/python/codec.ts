/**
 * A batch for a Triton python model: the requests go to execute() as they came (one InferenceRequest
 * each, with its own tensors: no concatenation, no copy), and exactly one response must come back per
 * request, holding outputs the config declares with its datatypes and shapes.
 *
 * A response carrying an error fails the batch with that message: the Executor contract answers a batch
 * as a whole (one result per request, or one error), so one request's error cannot be told apart yet.
 */
import type { InferResult } from '@inferscope/core';
import type { ModelConfig } from '@inferscope/core/config/index.ts';
import type { StubBatchCodec } from '../stub/executor';
import { readCheckedOutputs } from '../stub/outputs';

export function pythonCodec(config: ModelConfig): StubBatchCodec {
  const batching = (config.max_batch_size ?? 0) > 0;
  const declared = (config.output ?? []).map((o) => o.name ?? '');
  const who = `model.py of model '${config.name}'`;
  return {
    encode(batch) {
      const requests = batch.map((r) => ({ inputs: r.payload.inputs, outputs: r.payload.outputs ?? [], id: r.id }));
      return { requests, rows: batch.map((r) => r.batchSize) };
    },
    decode(batch, rows, result) {
      if (result.responses.length !== batch.length) {
        throw new Error(`${who} returned ${result.responses.length} responses for ${batch.length} requests`);
      }
      const errors = result.responses.flatMap((r, i) => (r.error !== undefined ? [{ i, message: r.error }] : []));
      if (errors.length > 0) {
        const same = errors.every((e) => e.message === errors[0].message);
        throw new Error(same ? errors[0].message : errors.map((e) => `request ${e.i + 1}: ${e.message}`).join('; '));
      }
      return result.responses.map((r, i): InferResult => {
        const tensors = readCheckedOutputs(config, r.outputs!, result.body, batching ? rows[i] : undefined, who);
        const asked = batch[i].payload.outputs?.length ? batch[i].payload.outputs! : declared;
        const byName = new Map(tensors.map((t) => [t.name, t]));
        return asked.map((name) => {
          const t = byName.get(name);
          if (!t) throw new Error(`${who} did not return output '${name}' (it returned: ${tensors.map((x) => x.name).join(', ') || 'none'})`);
          return t;
        });
      });
    },
  };
}
