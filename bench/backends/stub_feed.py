"""The pytorch stub's own cost, without the server: feeds the real stub (apps/server/python/stub_main.py)
batches over its frame channel back to back, two in flight (so it never waits for the next), and compares
the stub process's CPU per batch with torch called directly on the same input in this process, in
alternating rounds. What is left between the two is the stub's loop (frames, numpy views, JSON, the
reader thread); what stub-ratio.ts adds on top is the server process sharing the cores.

    /usr/bin/python3 bench/backends/stub_feed.py [BATCH=16] [ROUNDS=3] [SECONDS=1.5]
    STUB=native /usr/bin/python3 bench/backends/stub_feed.py 8    # the native stub (npm run build:torch-stub)
"""
import os
import socket
import subprocess
import sys
import time

# the driver's own torch gets the one BLAS thread the pytorch backend gives its stubs; OpenBLAS reads this
# when it loads, and otherwise starts one spinning thread per core (2x the CPU per forward() here)
os.environ["OPENBLAS_NUM_THREADS"] = os.environ["OMP_NUM_THREADS"] = "1"
import numpy as np  # noqa: E402
import torch  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
PY = os.path.join(HERE, "..", "..", "apps", "server", "python")
sys.path.insert(0, PY)
from inferscope_stub.wire import Channel  # noqa: E402

STUB = os.path.join(PY, "stub_main.py")
NATIVE = os.path.join(HERE, "..", "..", "apps", "server", "native", "torch-stub", "build", "torch_stub")
MODEL = os.path.join(HERE, "..", "..", "model_repository", "mlp_classifier_torch", "1", "model.pt")
CONFIG = {"name": "mlp", "input": [{"name": "input", "data_type": "TYPE_FP32", "dims": [784]}],
          "output": [{"name": "probabilities", "data_type": "TYPE_FP32", "dims": [10]}]}


def idle_polling():
    """The vCPUs' halt-polling on a KVM guest (bench/host.ts says why it moves these figures), or ''."""
    try:
        if open("/sys/devices/system/cpu/cpuidle/current_driver").read().strip() != "haltpoll":
            return ""
        return ", guest_halt_poll_ns " + open("/sys/module/haltpoll/parameters/guest_halt_poll_ns").read().strip()
    except OSError:
        return ""


def cpu_seconds(pid):
    fields = open("/proc/%d/stat" % pid).read().split(") ")[1].split(" ")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main(batch=16, rounds=3, seconds=1.5):
    ours, theirs = socket.socketpair()
    # STUB=native: the native pytorch stub (apps/server/native/torch-stub) in place of the Python one
    argv = [NATIVE] if os.environ.get("STUB") == "native" else [sys.executable, "-u", STUB]
    stub = subprocess.Popen(argv, preexec_fn=lambda: os.dup2(theirs.fileno(), 3), close_fds=False)  # inherits the one BLAS thread set above
    channel = Channel(ours.fileno())
    channel.write({"type": "init", "backend": "pytorch", "modelFile": MODEL, "model": "mlp", "version": "1", "modelDir": HERE,
                   "instance": "mlp_0", "device": "cpu", "kind": "KIND_CPU", "config": CONFIG,
                   "settings": {"intraOpThreads": 1, "interOpThreads": 1, "inferenceMode": True}})
    print(channel.read()[0]["runtime"])
    inputs = [np.random.rand(batch, 784).astype(np.float32) for _ in range(16)]  # fresh data, as from clients
    sent = [0]

    def send():
        sent[0] += 1
        x = inputs[sent[0] % len(inputs)]
        meta = {"name": "input", "datatype": "FP32", "shape": [batch, 784], "offset": 0, "bytes": x.nbytes}
        channel.write({"type": "run", "id": sent[0], "requests": [{"inputs": [meta], "outputs": []}]}, [x.reshape(-1).view(np.uint8)], x.nbytes)

    torch.set_num_threads(1)
    model = torch.jit.load(MODEL)
    model.eval()
    tensors = [torch.from_numpy(x) for x in inputs]
    ratios = []
    for r in range(rounds):
        send()
        send()
        cpu0, n, end = cpu_seconds(stub.pid), 0, time.time() + seconds
        while time.time() < end:
            channel.read()
            n += 1
            send()
        channel.read()
        channel.read()
        stub_us = (cpu_seconds(stub.pid) - cpu0) / (n + 2) * 1e6
        with torch.inference_mode():
            c0 = time.process_time()
            for i in range(n):
                model(tensors[i % len(tensors)])
            direct_us = (time.process_time() - c0) / n * 1e6
        ratios.append(direct_us / stub_us)
        print("round %d: stub %.0f µs CPU per batch of %d (%d batches), torch direct %.0f µs, direct / stub %.2f"
              % (r + 1, stub_us, batch, n + 2, direct_us, ratios[-1]), flush=True)
    channel.write({"type": "close"})
    stub.wait()
    print("median direct / stub CPU per batch: %.2f (load average %s%s)" % (sorted(ratios)[len(ratios) // 2], " ".join("%.1f" % l for l in os.getloadavg()), idle_polling()))


if __name__ == "__main__":
    main(*(f(a) for f, a in zip((int, int, float), sys.argv[1:])))
