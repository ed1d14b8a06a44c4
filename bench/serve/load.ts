/**
 * Closed-loop load helpers for the serve benchmark: over HTTP (client in a worker thread) and in-process
 * (promise loops calling a function), both reporting throughput and latency percentiles.
 */
import { Worker } from 'node:worker_threads';
import { percentile } from '@inferscope/core/stats';

export interface LoadResult {
  requests: number;
  errors: number;
  req_per_s: number;
  p50_ms: number;
  p99_ms: number;
  /** in-process only: CPU time of the whole process (all threads) per answered request, µs */
  cpu_us_per_req?: number;
  firstError?: string;
}

function summarize(latencies: ArrayLike<number>, errors: number, seconds: number, firstError?: string): LoadResult {
  const sorted = Float64Array.from(latencies).sort();
  const q = (p: number) => (sorted.length ? percentile(sorted, p) : NaN);
  return { requests: sorted.length, errors, req_per_s: sorted.length / seconds, p50_ms: q(0.5), p99_ms: q(0.99), firstError };
}

export interface HttpLoadOptions {
  url: string;
  headers: Record<string, string>;
  body: Uint8Array;
  concurrency: number;
  durationMs: number;
  warmupMs: number;
}

export function httpClosedLoop(opts: HttpLoadOptions): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./http-client-worker.mjs', import.meta.url), { workerData: opts, execArgv: [] });
    worker.once('message', (m: { latencies: Float64Array; errors: number; seconds: number; firstError?: string }) =>
      resolve(summarize(m.latencies, m.errors, m.seconds, m.firstError)),
    );
    worker.once('error', reject);
    worker.once('exit', (code) => code !== 0 && reject(new Error(`load worker exited with ${code}`)));
  });
}

/** In-process closed loop: `concurrency` loops awaiting `call()` back to back. */
export async function inProcessClosedLoop(
  call: () => Promise<unknown>,
  opts: { concurrency: number; durationMs: number; warmupMs: number },
): Promise<LoadResult> {
  const start = performance.now();
  const from = start + opts.warmupMs;
  const end = from + opts.durationMs;
  const latencies: number[] = [];
  let errors = 0;
  let firstError: string | undefined;
  // CPU time over the measured window, all threads (the instance's worker included). On a shared machine
  // other jobs stretch wall time but hardly this, so it is the steadier measure of what the path costs.
  let cpuFrom: NodeJS.CpuUsage | undefined;
  let cpuTo: NodeJS.CpuUsage | undefined;
  const cpuTimer = setTimeout(() => (cpuFrom = process.cpuUsage()), opts.warmupMs);
  const cpuEnd = setTimeout(() => (cpuTo = process.cpuUsage(cpuFrom)), opts.warmupMs + opts.durationMs);
  const loop = async () => {
    for (;;) {
      const t0 = performance.now();
      let ok = true;
      try {
        await call();
      } catch (err) {
        ok = false;
        firstError ??= (err as Error).message;
      }
      const now = performance.now();
      if (now > end) return;
      if (now < from) continue;
      if (ok) latencies.push(now - t0);
      else errors++;
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, loop));
  clearTimeout(cpuTimer);
  clearTimeout(cpuEnd);
  // the loops can end before the timer due at the same instant has run: the window closes now then
  if (cpuFrom && !cpuTo) cpuTo = process.cpuUsage(cpuFrom);
  const res = summarize(latencies, errors, opts.durationMs / 1000, firstError);
  if (cpuTo && latencies.length > 0) res.cpu_us_per_req = (cpuTo.user + cpuTo.system) / latencies.length;
  return res;
}
