/**
 * The server's main-thread CPU per request at moderate load: an open-loop HTTP client process (KServe
 * binary, client-process.mjs with RATE) at each rate in turn against the real server (buildApp,
 * mlp_batched, one instance, live gateway on), and the same server's main thread at saturation
 * (closed loop, c=32) as the baseline of the run. Prints, per rate, main-thread µs per request and its
 * ratio to the saturated figure (issue 31: "within a few times the saturated cost").
 *
 *   node --import tsx bench/serve/moderate-load.ts [--rates 50,200,800] [--seconds 3]
 */
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../../apps/server/src/app';
import { makeBenchRepository } from './bench-models';
import { mainThreadCpuUs } from './thread-cpu';
import { arg } from '../args';

const rates = arg('--rates', '50,200,800').split(',').map(Number);
const seconds = Number(arg('--seconds', '3'));
const here = fileURLToPath(new URL('.', import.meta.url));

function client(url: string, rate?: number): Promise<{ req_per_s: number; errors: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(here, 'client-process.mjs'), 'http', url, '32', String(seconds * 1000), '500'], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...(rate ? { RATE: String(rate) } : {}) } });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop()!)) : reject(new Error(`client exited ${code}`))));
  });
}

const repo = makeBenchRepository(1, ['mlp_batched']);
const server = await buildApp({ modelRepositories: [repo], httpPort: 0, grpcPort: null, metricsPort: null, host: '127.0.0.1', live: true });
const { url } = await server.listen();
const infer = `${url}/v2/models/mlp_batched/infer`;
/** main-thread µs per request over one client run (warm-up included in both counts, so it cancels out roughly) */
async function measure(rate?: number): Promise<{ us: number; rps: number }> {
  const cpu0 = mainThreadCpuUs();
  const r = await client(infer, rate);
  return { us: (mainThreadCpuUs() - cpu0) / (r.req_per_s * (seconds + 0.5)), rps: r.req_per_s };
}
try {
  console.log(`main-thread CPU per request, open loop vs saturated (c=32), ${seconds} s each, load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  const sat = await measure();
  for (const rate of rates) {
    const m = await measure(rate);
    console.log(`${String(rate).padStart(5)}/s: ${m.rps.toFixed(0)} req/s answered, main thread ${m.us.toFixed(0)} µs per request = ${(m.us / sat.us).toFixed(1)}x saturated (${sat.us.toFixed(0)} µs at ${sat.rps.toFixed(0)} req/s)`);
  }
} finally {
  await server.close();
}
