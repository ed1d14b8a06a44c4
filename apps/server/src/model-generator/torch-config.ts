/** config.pbtxt of mlp_classifier_torch, written as a person would write it (see configs.ts). */
export const MLP_TORCH_CONFIG = `# mlp_classifier_torch: mlp_classifier version 1 (same weights, same outputs to 1e-5) as TorchScript.
#
# What it shows: the same network on two backends. This one runs in a stub process (one Python process
# per instance, torch.jit.load), the way Triton runs its python backend; mlp_classifier runs in
# onnxruntime worker threads. Send both the same load and compare throughput and latency side by side.
# Needs torch for /usr/bin/python3 (Debian: apt-get install python3-torch libopenblas0-pthread);
# without it this model is UNAVAILABLE and says so, and every other model serves as before.
name: "mlp_classifier_torch"
backend: "pytorch"
max_batch_size: 64

# forward(input): Triton's pytorch backend maps config inputs to forward() argument names.
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
  preferred_batch_size: [ 8, 16, 32 ]
  max_queue_delay_microseconds: 2000
}

# One instance: each stub process holds its own interpreter and torch (~230 MiB resident). Raise the
# count from the dashboard to compare with mlp_classifier's two instances on equal terms.
instance_group [
  {
    name: "mlp_classifier_torch_cpu"
    count: 1
    kind: KIND_CPU
  }
]

# Triton's pytorch backend keys. One intra-op thread: instances x threads stay within the cores.
parameters { key: "INTRA_OP_THREAD_COUNT" value: { string_value: "1" } }
parameters { key: "INTER_OP_THREAD_COUNT" value: { string_value: "1" } }
parameters { key: "INFERENCE_MODE" value: { string_value: "true" } }

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
