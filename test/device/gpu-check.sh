#!/usr/bin/env bash
# GPU check for the pytorch stub backend (issue 11). Not part of the test suite: run it by hand on a host
# with an NVIDIA GPU and a CUDA build of torch for the stub interpreter. Takes about 3-5 minutes.
#
#   test/device/gpu-check.sh            # INFERSCOPE_PYTHON picks the interpreter (default /usr/bin/python3)
#
# Prints: the device; per KIND_GPU instance, VRAM from the driver (nvidia-smi, per stub pid) next to what
# the server accounts (Prometheus inferscope_instance_memory_bytes); throughput per batch size on the GPU
# and on the CPU (same TorchScript weights, one instance each); and a live instance-count increase that a
# GPU memory budget sized from the real VRAM refuses. Exits 0 with a message when there is no GPU.
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
PY=${INFERSCOPE_PYTHON:-/usr/bin/python3}

if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1 || [ -z "$(nvidia-smi -L 2>/dev/null)" ]; then
  echo "gpu-check: no NVIDIA GPU found (nvidia-smi missing or lists no GPU); nothing to check."
  exit 0
fi
if ! "$PY" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' >/dev/null 2>&1; then
  echo "gpu-check: a GPU is present but torch for $PY cannot use CUDA:"
  "$PY" -c 'import torch; print("  torch", torch.__version__, "cuda build:", torch.version.cuda, "available:", torch.cuda.is_available())' 2>&1 | tail -1
  echo "  install a CUDA build of torch for that interpreter (or set INFERSCOPE_PYTHON) and run again."
  exit 0
fi
MODEL_PT="$ROOT/model_repository/mlp_classifier_torch/1/model.pt"
[ -f "$MODEL_PT" ] || { echo "gpu-check: $MODEL_PT missing: run npx inferscope generate-models"; exit 1; }

echo "== device"
nvidia-smi --query-gpu=index,name,memory.total,memory.used,driver_version --format=csv
"$PY" -c 'import torch; print("torch", torch.__version__, "CUDA", torch.version.cuda, "device 0:", torch.cuda.get_device_name(0))'

WORK=$(mktemp -d /tmp/inferscope-gpu-check-XXXXXX)
SERVER_PID=""
cleanup() {
  if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then kill -TERM "$SERVER_PID"; wait "$SERVER_PID" 2>/dev/null; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

model() { # name kind
  mkdir -p "$WORK/repo/$1/1"
  cp "$MODEL_PT" "$WORK/repo/$1/1/model.pt"
  local gpus=""; [ "$2" = KIND_GPU ] && gpus="gpus: [ 0 ]"
  cat > "$WORK/repo/$1/config.pbtxt" <<PBTXT
name: "$1"
backend: "pytorch"
max_batch_size: 64
input [ { name: "input" data_type: TYPE_FP32 dims: [ 784 ] } ]
output [ { name: "probabilities" data_type: TYPE_FP32 dims: [ 10 ] } ]
dynamic_batching { max_queue_delay_microseconds: 500 }
instance_group [ { count: 1 kind: $2 $gpus } ]
parameters { key: "INTRA_OP_THREAD_COUNT" value: { string_value: "1" } }
PBTXT
}
model mlp_gpu KIND_GPU
model mlp_cpu KIND_CPU

PORT=$((20000 + RANDOM % 20000)); MPORT=$((PORT + 1))
start_server() { # extra serve args...
  node "$ROOT/apps/server/bin/inferscope.mjs" serve --model-repository "$WORK/repo" --http-port "$PORT" \
    --metrics-port "$MPORT" --python "$PY" "$@" > "$WORK/server.log" 2>&1 &
  SERVER_PID=$!
  for _ in $(seq 1 240); do
    if curl -sf "http://127.0.0.1:$PORT/v2/health/ready" >/dev/null 2>&1 || grep -q "serving KServe" "$WORK/server.log"; then return 0; fi
    kill -0 "$SERVER_PID" 2>/dev/null || break
    sleep 0.5
  done
  echo "gpu-check: the server did not start:"; tail -30 "$WORK/server.log"; exit 1
}
stop_server() { kill -TERM "$SERVER_PID"; wait "$SERVER_PID" 2>/dev/null; SERVER_PID=""; }
DRIVE="node --import tsx $ROOT/test/device/gpu-drive.ts"

echo; echo "== server with mlp_gpu (KIND_GPU) and mlp_cpu (KIND_CPU)"
start_server
grep -E "mlp_(gpu|cpu).*(ready on|READY|UNAVAILABLE|CUDA)" "$WORK/server.log"

echo; echo "== VRAM per instance: driver (nvidia-smi, per stub pid) vs the server's accounting"
nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv
grep -oE "instance [a-z_0-9]+: stub pid [0-9]+ ready on [a-z0-9]+" "$WORK/server.log"
$DRIVE memory "http://127.0.0.1:$MPORT/metrics"

echo; echo "== throughput per batch size (HTTP, binary tensors, 8 clients, 5 s per cell)"
echo "-- GPU (mlp_gpu)"; timeout 150 $DRIVE throughput "http://127.0.0.1:$PORT" mlp_gpu 1,8,32,64 5 8
echo "-- CPU (mlp_cpu)"; timeout 150 $DRIVE throughput "http://127.0.0.1:$PORT" mlp_cpu 1,8,32,64 5 8
MEASURED=$(curl -s "http://127.0.0.1:$MPORT/metrics" | grep '^inferscope_instance_memory_bytes{' | grep 'device="gpu0"' | grep 'model="mlp_gpu"' | awk '{print $NF}' | head -1)
stop_server

echo; echo "== budget refusal against real VRAM"
if [ -z "$MEASURED" ] || [ "$MEASURED" = "0" ]; then
  echo "no measured GPU figure for mlp_gpu: skipping the budget check"; exit 0
fi
BUDGET=$(( MEASURED * 3 / 2 ))
echo "one mlp_gpu instance measured $((MEASURED / 1048576)) MiB; budget gpu0 = 1.5x that = $((BUDGET / 1048576)) MiB; asking for 3 instances"
rm -rf "$WORK/repo/mlp_cpu"
start_server --memory-budget "gpu0:$BUDGET" --allow-open-control
timeout 60 $DRIVE add-instances "http://127.0.0.1:$PORT" mlp_gpu 3
$DRIVE memory "http://127.0.0.1:$MPORT/metrics"
nvidia-smi --query-compute-apps=pid,used_memory --format=csv
stop_server
echo; echo "gpu-check: done"
