/**
 * config.pbtxt of tiny_lm_generate: the same tiny_lm file served by continuous batching (Triton's iterative
 * sequences). Its inputs and outputs are what a client sends and gets; the file keeps its step signature
 * (the loader checks each where it is right: apps/server/src/generate/generative-model.ts).
 */
import { TINY_LM } from './tiny-lm';

export const TINY_LM_GENERATE_CONFIG = `# tiny_lm_generate: tiny_lm (a ${TINY_LM.layers}-layer byte-level decoder, seeded weights: its text means nothing) served
# token by token with CONTINUOUS (in-flight) batching: the batch is re-formed at every step, a request
# joins at the next step boundary and leaves after its last token, and its KV cache lives on the server in
# blocks of tokens_per_block tokens (PagedAttention's paged cache), counted in the memory ledger.
#
# Try it:  curl -N -d '{"text_input": "Hello", "max_tokens": 16}' \\
#            localhost:8000/v2/models/tiny_lm_generate/generate_stream
#          curl -d '{"text_input": "Hello", "max_tokens": 16}' localhost:8000/v2/models/tiny_lm_generate/generate
#
# Names: sequence_batching.iterative_sequence is Triton's (the request is rescheduled every step, its KV
# cache kept as its state); the parameters are TensorRT-LLM's (its Triton backend's config keys); the
# inputs and output are those of TensorRT-LLM's Triton ensemble (text_input, max_tokens, stream,
# text_output). "stream": false gives the whole text in one response; HTTP generate does by default.
name: "tiny_lm_generate"
backend: "onnxruntime"
max_batch_size: 0
model_transaction_policy { decoupled: true }
sequence_batching { iterative_sequence: true }

input [
  {
    name: "text_input"
    data_type: TYPE_STRING
    dims: [ 1 ]
  },
  {
    name: "max_tokens"
    data_type: TYPE_INT32
    dims: [ 1 ]
    optional: true
  },
  {
    name: "stream"
    data_type: TYPE_BOOL
    dims: [ 1 ]
    optional: true
  }
]
output [
  {
    name: "text_output"
    data_type: TYPE_STRING
    dims: [ 1 ]
  }
]

instance_group [
  {
    count: 1
    kind: KIND_CPU
  }
]

parameters { key: "max_seq_len" value: { string_value: "${TINY_LM.maxPositions}" } }
parameters { key: "max_num_sequences" value: { string_value: "8" } }
parameters { key: "max_num_tokens" value: { string_value: "${TINY_LM.maxPositions}" } }
parameters { key: "batch_scheduler_policy" value: { string_value: "guaranteed_no_evict" } }
parameters { key: "enable_chunked_context" value: { string_value: "false" } }
parameters { key: "tokens_per_block" value: { string_value: "16" } }
parameters { key: "max_tokens_in_paged_kv_cache" value: { string_value: "4096" } }
parameters { key: "intra_op_thread_count" value: { string_value: "1" } }
`;
