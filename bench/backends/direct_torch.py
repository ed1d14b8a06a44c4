"""torch called directly, in one Python process: the baseline of the stub benchmark.
Loads a TorchScript file, one intra-op thread, runs each batch size back to back for `ms` milliseconds
under torch.inference_mode and prints one JSON list of rows (mean time per run, samples/s).

    /usr/bin/python3 direct_torch.py MODEL.pt 1,8,32 1500 [threads]
    /usr/bin/python3 direct_torch.py MODEL.pt serve [threads]    # then one "BATCHES MS" line per measurement

The serve form stays loaded between measurements, so a benchmark can interleave short cells with the
server's without paying torch's import each time.
"""
import json
import sys
import time

import torch


def measure(model, batches, ms):
    rows = []
    for b in [int(x) for x in batches.split(",")]:
        x = (torch.arange(b * 784, dtype=torch.float32) % 255 / 255).reshape(b, 784)
        with torch.inference_mode():
            for _ in range(20):
                model(x)
            times = []
            cpu0 = time.process_time()
            end = time.perf_counter() + int(ms) / 1000
            while time.perf_counter() < end:
                t0 = time.perf_counter()
                model(x)
                times.append(time.perf_counter() - t0)
            cpu = time.process_time() - cpu0
        mean = sum(times) / len(times) * 1000
        times.sort()
        rows.append({
            "batch": b, "runs": len(times), "median_ms": times[len(times) // 2] * 1000, "mean_ms": mean,
            "cpu_us": cpu / len(times) * 1e6, "p99_ms": times[min(len(times) - 1, int(0.99 * len(times)))] * 1000,
            "samples_per_s": b * 1000 / mean,
        })
    return rows


def main(model_file, batches, ms="1500", threads="1"):
    if batches == "serve":
        threads = ms if ms != "1500" else "1"
    torch.set_num_threads(int(threads))
    torch.set_num_interop_threads(1)
    model = torch.jit.load(model_file)
    model.eval()
    if batches != "serve":
        print(json.dumps(measure(model, batches, ms)))
        return
    print("ready", flush=True)
    for line in sys.stdin:
        b, m = line.split()
        print(json.dumps(measure(model, b, m)), flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:])
