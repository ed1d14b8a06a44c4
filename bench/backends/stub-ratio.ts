/**
 * In-process server throughput of the pytorch backend (scheduler -> stub process -> torch) against torch
 * called directly in one Python process, at the batch sizes the server formed, in interleaved rounds
 * (the serve bench's method: each round's own ratio, the median decides; a shared machine moves too much
 * for one long cell against a baseline measured a minute apart).
 *
 *   node --import tsx bench/backends/stub-ratio.ts [--rounds 11] [--ms 1000] [--c 32] [--max-batch 64]
 *       [--stub auto|native|python]
 *
 * --stub: the server's --torch-stub (auto: the native stub where it is built).
 * Both sides use one intra-op thread; the server has one instance. Prints per round: server samples/s,
 * direct samples/s for the same batch mix, the ratio, and the batch-size histogram.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SchedulerEvent } from '@inferscope/core';
import { benchInput } from '../serve/bench-models';
import { directCpuPerSampleForMix, directThroughputForMix } from '../serve/direct-ort';
import { inProcessClosedLoop } from '../serve/load';
import { startInferScope } from '../serve/server-under-test';
import { arg } from '../args';
import { DirectTorch, TORCH_MODEL } from './direct-torch';
import { childPids } from '../../apps/server/src/backends/stub/proc-memory';
import { median } from '../median';
import { hostConditions } from '../host';
import { taskSwitches } from '../serve/thread-cpu';
import type { TorchStubChoice } from '../../apps/server/src/backends/pytorch/native-stub';

/** per thread of a process: CPU seconds and context switches (each voluntary one a sleep, so a wake-up) */
function threadTimes(pid: number): Map<number, { cpu: number; switches: number }> {
  const out = new Map<number, { cpu: number; switches: number }>();
  for (const tid of readdirSync(`/proc/${pid}/task`).map(Number)) {
    try {
      const f = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1].split(' ');
      out.set(tid, { cpu: (Number(f[11]) + Number(f[12])) / 100, switches: taskSwitches(pid, tid) });
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return out;
}

/** CPU seconds a process has used (utime + stime from /proc/<pid>/stat, at 100 ticks/s). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

const rounds = Number(arg('--rounds', '11'));
const ms = Number(arg('--ms', '1000'));
const concurrency = Number(arg('--c', '32'));
// --max-batch N: the instance's max_batch_size (preferred sizes above it dropped), so a batch size can be
// measured with more than two batches in flight: at c = 2 x batch the closed loop leaves the instance
// idle whenever the server's turn between batches outlasts a forward()
const maxBatch = Number(arg('--max-batch', '64'));
const preferred = [8, 16, 32].filter((n) => n <= maxBatch);
const stub = arg('--stub', 'auto') as TorchStubChoice;

const dir = mkdtempSync(join(tmpdir(), 'inferscope-bench-torch-'));
mkdirSync(join(dir, 'mlp_torch', '1'), { recursive: true });
copyFileSync(TORCH_MODEL, join(dir, 'mlp_torch', '1', 'model.pt'));
writeFileSync(join(dir, 'mlp_torch', 'config.pbtxt'), [
  'name: "mlp_torch"',
  'backend: "pytorch"',
  `max_batch_size: ${maxBatch}`,
  'input [ { name: "input" data_type: TYPE_FP32 dims: [ 784 ] } ]',
  'output [ { name: "probabilities" data_type: TYPE_FP32 dims: [ 10 ] } ]',
  `dynamic_batching { ${preferred.length ? `preferred_batch_size: [ ${preferred.join(', ')} ] ` : ''}max_queue_delay_microseconds: 2000 }`,
  'instance_group [ { count: 1 kind: KIND_CPU } ]',
  'parameters { key: "INTRA_OP_THREAD_COUNT" value: { string_value: "1" } }',
  '',
].join('\n'));

const server = await startInferScope(dir, true, stub);
const direct = new DirectTorch();
await direct.ready;
let hist: Record<number, number> = {};
server.bus.on((e: SchedulerEvent) => {
  if (e.type === 'batch.formed') hist[e.size] = (hist[e.size] ?? 0) + 1;
});
const closedLoop = () =>
  inProcessClosedLoop(() => server.infer('mlp_torch', { batchSize: 1, shapeKey: '', payload: { inputs: [benchInput] } }), {
    concurrency,
    durationMs: ms,
    warmupMs: 300,
  });
const ratios: number[] = [];
const cpuRatios: number[] = [];
// the stub: this process's child (Python or native) that is not the direct-torch baseline
const stubPid = childPids(process.pid).find((p) => p !== direct.pid && /stub_main\.py|torch_stub/.test(readFileSync(`/proc/${p}/cmdline`, 'utf8')))!;
const stubKind = readFileSync(`/proc/${stubPid}/cmdline`, 'utf8').includes('torch_stub') ? 'native' : 'Python';
try {
  console.log(`in-process mlp_torch (${stubKind} pytorch stub, 1 instance, 1 thread) c=${concurrency}, max_batch_size ${maxBatch} vs torch direct in one process (1 thread); ${rounds} rounds of ${ms} ms; ${hostConditions()}`);
  await closedLoop(); // cold round, not recorded
  for (let r = 0; r < rounds; r++) {
    hist = {};
    const stubCpu0 = cpuSeconds(stubPid);
    const threads0 = threadTimes(stubPid);
    const res = await closedLoop();
    const threads1 = threadTimes(stubPid);
    // CPU per sample on the server side: the whole server process (scheduler, client loops, answers) plus
    // the stub, against torch's own CPU per sample directly. Steadier than wall time on a loaded machine.
    const sizes = Object.keys(hist).map(Number).sort((a, b) => a - b);
    const batches = Object.values(hist).reduce((a, b) => a + b, 0);
    // every sample the stub ran in the round, the closed loop's warm-up included (as its CPU is)
    const samples = sizes.reduce((a, s) => a + s * hist[s], 0);
    const stubCpuUs = ((cpuSeconds(stubPid) - stubCpu0) * 1e6) / samples;
    const avgBatch = samples / batches;
    const rows = await direct.measure(sizes, Math.max(200, Math.round(ms / sizes.length)));
    const baseline = directThroughputForMix(rows, hist);
    const directCpuUs = directCpuPerSampleForMix(rows, hist);
    cpuRatios.push(directCpuUs / stubCpuUs);
    const ratio = res.req_per_s / baseline;
    ratios.push(ratio);
    const top = Object.entries(hist).sort((a, b) => b[1] - a[1]).slice(0, 4).map(([s, n]) => `${s}x${n}`).join(' ');
    // the stub's threads in the order they started (main = the pid; then the reader, then the writer)
    const perBatch = [...threads1].filter(([tid]) => threads0.has(tid)).sort((a, b) => a[0] - b[0]).map(([tid, t]) => {
      const t0 = threads0.get(tid)!;
      return `${tid === stubPid ? 'main' : tid} ${(((t.cpu - t0.cpu) * 1e6) / batches).toFixed(0)} µs ${((t.switches - t0.switches) / batches).toFixed(2)} sw`;
    });
    console.log(`round ${r + 1}: server ${res.req_per_s.toFixed(0)} samples/s (p50 ${res.p50_ms.toFixed(2)} ms, errors ${res.errors}), direct ${baseline.toFixed(0)}, ratio ${ratio.toFixed(3)}; CPU/sample stub ${stubCpuUs.toFixed(1)} µs, server process ${(res.cpu_us_per_req ?? NaN).toFixed(1)} µs, direct ${directCpuUs.toFixed(1)} µs; avg batch ${avgBatch.toFixed(1)} [${top}]; stub threads per batch: ${perBatch.join(', ')}`);
  }
  console.log(`median server/direct throughput ratio: ${median(ratios).toFixed(3)} (min ${Math.min(...ratios).toFixed(3)}, max ${Math.max(...ratios).toFixed(3)})`);
  console.log(`median direct/stub CPU-per-sample ratio (what the stub process alone costs over torch): ${median(cpuRatios).toFixed(3)}`);
} finally {
  direct.close();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}
