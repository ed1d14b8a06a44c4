/**
 * The pytorch backend's compute alone, the counterpart of onnxruntime's session table: torch.jit.load of the
 * model and forward() at each batch size in the stub's interpreter (Debian's /usr/bin/python3 unless told
 * otherwise), with the config's thread counts and inference mode, median µs over at least `minMs` of runs.
 * No stub, no frames, no process hop: what the network costs in torch itself.
 */
import { execFile } from 'node:child_process';
import { numericParameter, type ModelConfig } from '@inferscope/core/config';
import { resolvePython } from '../backends/stub/plan';

const SCRIPT = String.raw`
import json, sys, time
import torch
spec = json.loads(sys.argv[1])
torch.set_num_threads(spec["threads"])
try:
    torch.set_num_interop_threads(spec["interop"])
except RuntimeError:
    pass
model = torch.jit.load(spec["file"], map_location="cpu").eval()
out = {}
for b in spec["sizes"]:
    xs = [torch.rand([b] + dims) for dims in spec["inputs"]]
    times = []
    with torch.inference_mode():
        for _ in range(3):
            model(*xs)
        start = time.perf_counter()
        while len(times) < 15 or ((time.perf_counter() - start) * 1000 < spec["min_ms"] and len(times) < 400):
            t0 = time.perf_counter()
            model(*xs)
            times.append((time.perf_counter() - t0) * 1e6)
    times.sort()
    out[str(b)] = round(times[len(times) // 2], 1)
print(json.dumps(out))
`;

const param = (config: ModelConfig, key: string, fallback: number) => numericParameter(config, key) || fallback;

export function torchSessionTable(file: string, config: ModelConfig, sizes: readonly number[], minMs: number, python?: string): Promise<Record<string, number>> {
  const inputs = (config.input ?? []).map((i) => {
    if (i.data_type !== 'TYPE_FP32') throw new Error(`${config.name}: input ${i.name} is ${i.data_type}; the torch session table knows FP32`);
    return (i.dims ?? []).map((d) => (d < 0 ? 16 : d));
  });
  const spec = { file, sizes, inputs, min_ms: minMs, threads: param(config, 'INTRA_OP_THREAD_COUNT', 1), interop: param(config, 'INTER_OP_THREAD_COUNT', 1) };
  return new Promise((resolve, reject) => {
    execFile(resolvePython(python), ['-c', SCRIPT, JSON.stringify(spec)], { timeout: 120_000, maxBuffer: 1 << 20 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`torch session timing failed: ${(stderr || err.message).trim().split('\n').pop()}`));
      try {
        resolve(JSON.parse(stdout) as Record<string, number>);
      } catch {
        reject(new Error(`torch session timing printed no table: ${stdout.slice(0, 200)}`));
      }
    });
  });
}
