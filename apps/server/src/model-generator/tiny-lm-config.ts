/** config.pbtxt of tiny_lm, written as a person would write it (see configs.ts); the per-layer cache tensors from TINY_LM. */
import { KV_STEP_TENSORS as N } from '@inferscope/core/kv-cache';
import { TINY_LM } from './tiny-lm';

const tensor = (name: string, type: string, dims: string) => `  {\n    name: "${name}"\n    data_type: ${type}\n    dims: [ ${dims} ]\n  }`;
const cacheDims = `${TINY_LM.heads}, -1, ${TINY_LM.headDim}`;
const cache = (io: 'past' | 'present') =>
  Array.from({ length: TINY_LM.layers }, (_, l) => [
    tensor(io === 'past' ? N.pastKey(l) : N.presentKey(l), 'TYPE_FP32', cacheDims),
    tensor(io === 'past' ? N.pastValue(l) : N.presentValue(l), 'TYPE_FP32', cacheDims),
  ]).flat();

export const TINY_LM_CONFIG = `# tiny_lm: a ${TINY_LM.layers}-layer decoder-only transformer (d_model ${TINY_LM.dModel}, ${TINY_LM.heads} heads) over bytes: token ids
# 0-255 are a text's UTF-8 bytes, ${TINY_LM.endToken} ends a text. Seeded random weights: its text means nothing, but
# greedy decoding is deterministic, and a sequence's tokens are the same whatever shares its batches.
#
# What it shows: ONE STEP of a generative model with its KV cache passed in and out. Each request is a
# complete step (new tokens, their positions, the attention mask, every layer's past keys and values),
# so the model is stateless to the server and the dynamic batcher serves it as it is: requests of the same
# shapes (same new-token count, same past length) share a batch, and rows never mix (padding is masked).
# A client runs the loop: send the prompt with an empty past (dims [1, ${TINY_LM.heads}, 0, ${TINY_LM.headDim}]), take the argmax of
# "logits" as the next token, send it back with the "present_*" tensors as the next "past_*".
# Keeping the cache on the server (paged blocks, continuous batching) is the step scheduler's job.
name: "tiny_lm"
backend: "onnxruntime"
max_batch_size: 8

input [
${[
  tensor(N.inputIds, 'TYPE_INT64', '-1'),
  tensor(N.positionIds, 'TYPE_INT64', '-1'),
  tensor(N.attentionMask, 'TYPE_INT64', '-1'),
  ...cache('past'),
].join(',\n')}
]
output [
${[tensor(N.logits, 'TYPE_FP32', String(TINY_LM.vocab)), ...cache('present')].join(',\n')}
]

dynamic_batching {
  max_queue_delay_microseconds: 500
}

instance_group [
  {
    count: 1
    kind: KIND_CPU
  }
]

parameters { key: "intra_op_thread_count" value: { string_value: "1" } }
`;
