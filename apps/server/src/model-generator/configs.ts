/**
 * The config.pbtxt of each demo model, written as a person would write it: every choice commented.
 * Kept as text (not printed from a ModelConfig) so the files read like hand-written Triton configs.
 */

export const MLP_CONFIG = `# mlp_classifier: a 784-512-512-10 multilayer perceptron ending in softmax (MNIST-sized input).
#
# What it shows: a MEMORY-BOUND model. Every run streams ~2.7 MB of weights through the CPU caches
# whatever the batch size, so a run of 32 samples costs only ~3x a run of 1. Dynamic batching turns
# that into 5-10x more throughput: watch the batch-size histogram grow under load.
name: "mlp_classifier"
backend: "onnxruntime"
max_batch_size: 64

# Versions 1 and 2 hold different weights; both are served.
version_policy: { latest: { num_versions: 2 } }

input [
  {
    name: "input"
    data_type: TYPE_FP32
    dims: [ 784 ]
  }
]
output [
  {
    name: "probabilities"
    data_type: TYPE_FP32
    dims: [ 10 ]
  }
]

dynamic_batching {
  # Send a batch as soon as one of these sizes is reachable (the largest reachable wins) ...
  preferred_batch_size: [ 8, 16, 32 ]
  # ... or once the oldest request has waited 2 ms.
  max_queue_delay_microseconds: 2000
}

# Two instances, each a worker thread with its own ONNX Runtime session: one per core.
instance_group [
  {
    name: "mlp_classifier_cpu"
    count: 2
    kind: KIND_CPU
  }
]

# One intra-op thread per instance: 2 instances x 1 thread = the 2 cores, no oversubscription.
parameters { key: "intra_op_thread_count" value: { string_value: "1" } }
parameters { key: "inter_op_thread_count" value: { string_value: "1" } }

# Run one batch of 8 zeros through each instance before it counts as ready, so the first real
# request does not pay for ONNX Runtime's first-run allocations.
model_warmup [
  {
    name: "zeros_batch_8"
    batch_size: 8
    inputs {
      key: "input"
      value: { data_type: TYPE_FP32 dims: [ 784 ] zero_data: true }
    }
  }
]
`;

export const CNN_CONFIG = `# cnn_classifier: two 3x3 convolution layers and a linear head on a 3x64x64 image.
#
# What it shows: a COMPUTE-BOUND model. ~6.5 M multiply-adds per sample against ~25 KB of weights:
# a batch of 8 costs ~8x a batch of 1, so on CPU dynamic batching barely raises throughput and only
# adds queueing delay. Compare its throughput-vs-batch curve with mlp_classifier's.
name: "cnn_classifier"
backend: "onnxruntime"
max_batch_size: 16

input [
  {
    name: "image"
    data_type: TYPE_FP32
    dims: [ 3, 64, 64 ]
  }
]
output [
  {
    name: "probabilities"
    data_type: TYPE_FP32
    dims: [ 10 ]
  }
]

dynamic_batching {
  preferred_batch_size: [ 4, 8 ]
  max_queue_delay_microseconds: 1000
}

instance_group [
  {
    count: 1
    kind: KIND_CPU
  }
]

parameters { key: "intra_op_thread_count" value: { string_value: "1" } }
`;

export const TEXT_CONFIG = `# text_encoder: token ids -> mean of their 64-wide embeddings (Gather + ReduceMean, vocabulary 2048).
#
# What it shows: VARIABLE-LENGTH inputs. dims [ -1 ] means each request picks its own sequence length,
# and only requests of equal length can be stacked into one batch. With mixed lengths the batcher
# closes batches early (trigger "shape"); with equal lengths they batch like any other model.
name: "text_encoder"
backend: "onnxruntime"
max_batch_size: 32

input [
  {
    name: "token_ids"
    data_type: TYPE_INT64
    dims: [ -1 ]
  }
]
output [
  {
    name: "embedding"
    data_type: TYPE_FP32
    dims: [ 64 ]
  }
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
# Its Gather makes a 64-float row (256 bytes) per token id before the mean: what a request costs while it
# runs, checked against the memory budget before it is queued (a 2,000,000-token request needs ~512 MB).
parameters { key: "activation_bytes_per_input_element" value: { string_value: "256" } }
`;
