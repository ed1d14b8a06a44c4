/**
 * The server's main-thread CPU and wake-ups per request at moderate load, side by side with the
 * architecture's floor (architecture-floor.ts with the model: Fastify + one onnxruntime worker thread,
 * nothing else) at the same open-loop rates. Each side runs in a process of its own (an idle server's
 * timers in the same process would be charged to the other side), rounds alternate which side goes first,
 * and each side's saturated cost (closed loop, c=32) is measured in the same process as its baseline.
 * Requests are counted by the server (InferScope's statistics, the floor's own count), outside the CPU
 * window. Issue 31: "within a few times the saturated cost"; the floor says how far below its own saturated
 * cost a server of this architecture can go on this host at each rate.
 *
 *   node --import tsx bench/serve/moderate-load.ts [--rates 50,200,800] [--seconds 3] [--rounds 3] [--rule floor]
 *
 * `--rule floor` gives InferScope the floor's batching rule (no queue delay, no preferred sizes); by
 * default it serves mlp_batched as bundled (preferred 8/16/32, 2 ms delay), so at low load every batch
 * waits for its delay: one timer per batch the floor does not have.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { arg } from '../args';
import { median } from '../median';
import { startArchitectureFloor } from './architecture-floor';
import { makeBenchRepository, useFloorRule } from './bench-models';
import { DEFAULT_MODEL } from './direct-ort';
import { settledCounts } from './server-counts';
import { startInferScope } from './server-under-test';
import { mainThreadCpuUs, taskSwitches } from './thread-cpu';
import { hostConditions } from '../host';

type Side = 'inferscope' | 'floor';
interface Figure { us: number; wakeups: number; rps: number }
/** one side's run: its saturated figure, then one per rate */
interface SideRun { saturated: Figure; rates: Figure[] }

const rates = arg('--rates', '50,200,800').split(',').map(Number);
const seconds = Number(arg('--seconds', '3'));
const here = fileURLToPath(new URL('.', import.meta.url));

function client(url: string, rate?: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, ...(rate ? { RATE: String(rate) } : {}) };
    const child = spawn(process.execPath, [join(here, 'client-process.mjs'), 'http', url, '32', String(seconds * 1000), '500'], { stdio: ['ignore', 'ignore', 'inherit'], env });
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`client exited ${code}`))));
  });
}

async function runSide(side: Side): Promise<SideRun> {
  let url: string;
  let answered: () => Promise<number>;
  let close: () => Promise<void>;
  if (side === 'floor') {
    const f = await startArchitectureFloor(DEFAULT_MODEL);
    url = f.url;
    answered = async () => f.formed().requests;
    close = f.close;
  } else {
    const repo = makeBenchRepository(1, ['mlp_batched']);
    if (arg('--rule', 'bundled') === 'floor') useFloorRule(repo, 0);
    const s = await startInferScope(repo);
    url = `${s.url}/v2/models/mlp_batched/infer`;
    answered = async () => (await settledCounts(s.url, 'mlp_batched')).success;
    close = s.close;
  }
  const measure = async (rate?: number): Promise<Figure> => {
    const n0 = await answered();
    const cpu0 = mainThreadCpuUs();
    const x0 = taskSwitches();
    const t0 = performance.now();
    await client(url, rate);
    const cpu = mainThreadCpuUs() - cpu0;
    const x = taskSwitches() - x0;
    const s = (performance.now() - t0) / 1000;
    const n = (await answered()) - n0;
    return { us: cpu / n, wakeups: x / n, rps: n / s };
  };
  try {
    const saturated = await measure();
    const out: Figure[] = [];
    for (const rate of rates) out.push(await measure(rate));
    return { saturated, rates: out };
  } finally {
    await close();
  }
}

function child(side: Side): Promise<SideRun> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), ...process.argv.slice(2), '--side', side], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    p.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop()!)) : reject(new Error(`${side} exited ${code}`))));
  });
}

const side = arg('--side', '');
if (side === 'inferscope' || side === 'floor') {
  console.log(JSON.stringify(await runSide(side)));
} else {
  const rounds = Number(arg('--rounds', '3'));
  console.log(`main thread per request, open loop, InferScope (${arg('--rule', 'bundled')} rule) vs the floor with the model, ${seconds} s per rate, ${rounds} rounds, ${hostConditions()}`);
  const runs: Record<Side, SideRun[]> = { inferscope: [], floor: [] };
  for (let r = 0; r < rounds; r++) {
    const order: Side[] = r % 2 === 0 ? ['inferscope', 'floor'] : ['floor', 'inferscope'];
    for (const s of order) runs[s].push(await child(s));
  }
  const med = (s: Side, pick: (run: SideRun) => number) => median(runs[s].map(pick));
  const row = (label: string, pick: (run: SideRun) => Figure) => {
    const i = { us: med('inferscope', (r) => pick(r).us), x: med('inferscope', (r) => pick(r).wakeups), rps: med('inferscope', (r) => pick(r).rps) };
    const f = { us: med('floor', (r) => pick(r).us), x: med('floor', (r) => pick(r).wakeups) };
    const ratio = median(runs.inferscope.map((r, k) => pick(r).us / pick(runs.floor[k]!).us));
    const iSat = med('inferscope', (r) => r.saturated.us);
    const fSat = med('floor', (r) => r.saturated.us);
    console.log(`${label.padStart(10)}: ${i.rps.toFixed(0).padStart(6)} req/s | InferScope ${i.us.toFixed(0).padStart(5)} µs ${i.x.toFixed(1)} wake-ups (${(i.us / iSat).toFixed(1)}x its saturated) | floor ${f.us.toFixed(0).padStart(5)} µs ${f.x.toFixed(1)} wake-ups (${(f.us / fSat).toFixed(1)}x) | InferScope / floor ${ratio.toFixed(2)} (median of rounds)`);
  };
  row('saturated', (r) => r.saturated);
  rates.forEach((rate, k) => row(`${rate}/s`, (r) => r.rates[k]!));
}
