/**
 * A batch for a Triton python model: the requests go to execute() as they came (one InferenceRequest
 * each, with its own tensors: no concatenation, no copy), and exactly one response must come back per
 * request, holding outputs the config declares with its datatypes and shapes.
 *
 * Each response answers its own request, as in Triton: a response carrying a TritonError fails that
 * request alone, with the error's message and its Triton code; a response with a
 * wrong output fails that request alone too. The other requests of the batch are answered normally.
 * What fails the batch as a whole (execute() raising, a wrong number of responses, the stub dying) is
 * never re-run in parts: `rerunSafe: false` (why: isolate-failures.ts).
 */
import { errorCodeOf, RequestFailure, type InferResult } from '@inferscope/core';
import type { ModelConfig } from '@inferscope/core/config';
import type { StubBatchCodec } from '../stub/executor';
import { readCheckedOutputs } from '../stub/outputs';

export function pythonCodec(config: ModelConfig): StubBatchCodec {
  const batching = (config.max_batch_size ?? 0) > 0;
  const declared = (config.output ?? []).map((o) => o.name ?? '');
  const who = `model.py of model '${config.name}'`;
  const decoupled = config.model_transaction_policy?.decoupled === true;
  return {
    rerunSafe: false,
    encode(batch) {
      const requests = batch.map((r) => ({ inputs: r.payload.inputs, outputs: r.payload.outputs ?? [], id: r.id }));
      return { requests, rows: batch.map((r) => r.batchSize) };
    },
    decode(batch, rows, result) {
      // a decoupled model's responses went to each request's stream (decoupled-runs.ts); execute() returned
      if (decoupled) return batch.map((): InferResult => []);
      if (result.responses.length !== batch.length) {
        throw new Error(`${who} returned ${result.responses.length} responses for ${batch.length} requests`);
      }
      return result.responses.map((r, i): InferResult | RequestFailure => {
        if (r.error !== undefined) return new RequestFailure(r.error, errorCodeOf(r.code));
        try {
          const tensors = readCheckedOutputs(config, r.outputs, result.body, batching ? rows[i] : undefined, who);
          const asked = batch[i].payload.outputs?.length ? batch[i].payload.outputs! : declared;
          const byName = new Map(tensors.map((t) => [t.name, t]));
          return asked.map((name) => {
            const t = byName.get(name);
            if (!t) throw new Error(`${who} did not return output '${name}' (it returned: ${tensors.map((x) => x.name).join(', ') || 'none'})`);
            return t;
          });
        } catch (err) {
          return new RequestFailure((err as Error).message);
        }
      });
    },
  };
}
