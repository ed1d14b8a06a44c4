/**
 * What the binary framing costs: round trips of a batch to a stub whose model.py returns its input at once
 * (numpy only, no compute), so the time is the hand-off both ways (frame writes, socket pair, Python decode
 * to numpy views, encode of the answer) and nothing else.
 *
 *   node --import tsx bench/backends/handoff.ts [--ms 1500] [--batch 1,8,64]
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventBus, type InferPayload, type SchedulerRequest } from '@inferscope/core';
import type { ModelConfig } from '@inferscope/core/config';
import { pythonBackend } from '../../apps/server/src/backends/python/backend';
import { MemoryLedger } from '../../apps/server/src/memory/ledger';
import { arg } from '../args';

const ms = Number(arg('--ms', '1500'));
const batchSizes = arg('--batch', '1,8,64').split(',').map(Number);
const dir = mkdtempSync(join(tmpdir(), 'inferscope-handoff-'));
mkdirSync(join(dir, 'echo', '1'), { recursive: true });
writeFileSync(join(dir, 'echo', '1', 'model.py'), `
import triton_python_backend_utils as pb_utils
class TritonPythonModel:
    def execute(self, requests):
        return [pb_utils.InferenceResponse([pb_utils.Tensor("output", pb_utils.get_input_tensor_by_name(r, "input").as_numpy())]) for r in requests]
`);
const config: ModelConfig = {
  name: 'echo', backend: 'python', max_batch_size: 64,
  input: [{ name: 'input', data_type: 'TYPE_FP32', dims: [784] }],
  output: [{ name: 'output', data_type: 'TYPE_FP32', dims: [784] }],
  instance_group: [{ name: 'echo', kind: 'KIND_CPU', count: 1 }],
};
const loaded = await pythonBackend.load({
  model: 'echo', version: '1', versionDir: join(dir, 'echo', '1'), modelFile: join(dir, 'echo', '1', 'model.py'), config,
  gpuCount: 0, log: () => {}, memory: new MemoryLedger({ bus: new EventBus() }),
});
const inst = { name: 'echo_0', group: 'echo', kind: 'KIND_CPU', device: 'cpu', index: 0 };
await loaded.executor.startInstance!(inst);
try {
  console.log('| batch | payload each way | round trip µs (mean) | µs per MB moved |');
  console.log('|---|---|---|---|');
  for (const b of batchSizes) {
    const req: SchedulerRequest<InferPayload> = { id: 'h', batchSize: b, shapeKey: '', payload: { inputs: [{ name: 'input', datatype: 'FP32', shape: [b, 784], data: new Float32Array(b * 784) }] } };
    for (let i = 0; i < 50; i++) await loaded.executor.execute(inst, [req]);
    let n = 0;
    const t0 = performance.now();
    while (performance.now() - t0 < ms) {
      await loaded.executor.execute(inst, [req]);
      n++;
    }
    const us = ((performance.now() - t0) * 1000) / n;
    const mb = (2 * b * 784 * 4) / 1e6;
    console.log(`| ${b} | ${((b * 784 * 4) / 1024).toFixed(1)} KiB | ${us.toFixed(0)} | ${(us / mb).toFixed(0)} |`);
  }
} finally {
  await loaded.unload();
  rmSync(dir, { recursive: true, force: true });
}
