/**
 * Soak: steady load on a real server for a while, reporting RSS, heap, event-loop delay and latency over
 * time, and a trend check (least-squares slope per minute over the windows after warm-up).
 *
 *   npx tsx bench/soak/run.ts [--seconds 180] [--rate 100] [--window 10] [--repository model_repository]
 *
 * The server (buildApp, 127.0.0.1, port 0) and the client run in this process, so the event-loop delay
 * is the server's loop with the client's small share on it. Requests go over real HTTP (keep-alive) to
 * mlp_classifier (binary tensors) and text_encoder (JSON, varying lengths), open loop at --rate req/s.
 * Exit code 1 when a trend check fails or a request is lost.
 */
import http from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { buildApp } from '../../apps/server/src/app.ts';
import { percentile } from '@inferscope/core/stats';

const ROOT = new URL('../../', import.meta.url).pathname;
function arg(name: string, fallback: number): number;
function arg(name: string, fallback: string): string;
function arg(name: string, fallback: number | string): number | string {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const v = process.argv[i + 1];
  if (typeof fallback === 'number') {
    const n = Number(v);
    if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} expects a positive number, got ${v}`);
    return n;
  }
  return v;
}
const SECONDS = arg('seconds', 180);
const RATE = arg('rate', 100);
const WINDOW_S = arg('window', 10);
const REPO = arg('repository', join(ROOT, 'model_repository'));
/**
 * Memory: the least-squares slope per minute (after warm-up) must stay under these. Latency and event-loop
 * delay are noisy on shared cores, so their check is robust instead: the median of the later half of the
 * windows must stay within 1.5x (+20 ms) of the earlier half's. Both slopes are printed either way.
 */
const LIMITS = { rssMiBPerMin: 8, heapMiBPerMin: 4 };

const MiB = 1024 * 1024;
// Live heap = heap after a full GC: without it the sawtooth of a collecting heap hides any trend.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function mlpBody(i: number): { body: Buffer; headers: Record<string, string> } {
  const rows = 1 + (i % 4);
  const data = Buffer.alloc(rows * 784 * 4);
  const f = new Float32Array(data.buffer, data.byteOffset, rows * 784);
  for (let j = 0; j < f.length; j += 31) f[j] = ((i + j) % 17) / 17;
  const header = Buffer.from(JSON.stringify({ id: `m${i}`, inputs: [{ name: 'input', datatype: 'FP32', shape: [rows, 784], parameters: { binary_data_size: data.byteLength } }] }));
  return { body: Buffer.concat([header, data]), headers: { 'content-type': 'application/octet-stream', 'inference-header-content-length': String(header.byteLength) } };
}
function textBody(i: number): { body: Buffer; headers: Record<string, string> } {
  const len = 4 + (i % 29);
  const data = Array.from({ length: len }, (_, j) => (i * 7 + j * 13) % 2048);
  return { body: Buffer.from(JSON.stringify({ id: `t${i}`, inputs: [{ name: 'token_ids', datatype: 'INT64', shape: [1, len], data }] })), headers: { 'content-type': 'application/json' } };
}

interface Window {
  t: number;
  sent: number;
  ok: number;
  errors: number;
  p50: number;
  p99: number;
  rssMiB: number;
  heapMiB: number;
  eldP99: number;
  eldMax: number;
}

/** p in percent: core's nearest-rank percentile (NaN when nothing was measured) */
function pct(sorted: number[], p: number): number {
  return sorted.length ? percentile(sorted, p / 100) : NaN;
}
function slopePerMin(xs: number[], ys: number[]): number {
  const n = xs.length;
  if (n < 2) return 0;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += (xs[i] - mx) * (ys[i] - my);
    den += (xs[i] - mx) ** 2;
  }
  return den === 0 ? 0 : (num / den) * 60;
}

async function main(): Promise<void> {
  const server = await buildApp({ modelRepositories: [REPO], host: '127.0.0.1', httpPort: 0, metricsPort: null, gpuCount: 0, live: true });
  await server.listen();
  const port = (server.app.server.address() as AddressInfo).port;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const eld = monitorEventLoopDelay({ resolution: 10 });
  eld.enable();

  let sent = 0;
  let answered = 0;
  let errors = 0;
  let winLat: number[] = [];
  let winSent = 0;
  let winOk = 0;
  let winErr = 0;
  const windows: Window[] = [];
  const t0 = performance.now();
  const post = (i: number) =>
    new Promise<void>((resolve) => {
      const mlp = i % 3 !== 2;
      const { body, headers } = mlp ? mlpBody(i) : textBody(i);
      const start = performance.now();
      const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: `/v2/models/${mlp ? 'mlp_classifier' : 'text_encoder'}/infer`, agent, headers: { ...headers, 'content-length': body.byteLength } }, (res) => {
        res.resume();
        res.on('end', () => {
          answered++;
          winLat.push(performance.now() - start);
          if (res.statusCode === 200) winOk++;
          else {
            errors++;
            winErr++;
          }
          resolve();
        });
      });
      req.on('error', () => {
        answered++;
        errors++;
        winErr++;
        resolve();
      });
      req.end(body);
    });

  const inflight = new Set<Promise<void>>();
  console.log(`soak: ${SECONDS} s at ${RATE} req/s (2/3 mlp_classifier binary, 1/3 text_encoder JSON), windows of ${WINDOW_S} s, server on 127.0.0.1:${port}`);
  console.log('   t_s   sent     ok  err  p50_ms  p99_ms  rss_MiB live_heap_MiB eld_p99_ms eld_max_ms');
  let nextWindow = WINDOW_S;
  await new Promise<void>((resolve) => {
    const tick = () => {
      const elapsed = (performance.now() - t0) / 1000;
      const due = Math.floor(Math.min(elapsed, SECONDS) * RATE);
      while (sent < due) {
        const p = post(sent++);
        winSent++;
        inflight.add(p);
        void p.then(() => inflight.delete(p));
      }
      if (elapsed >= nextWindow) {
        const lat = winLat.sort((a, b) => a - b);
        const eldP99 = eld.percentile(99) / 1e6;
        const eldMax = eld.max / 1e6;
        gc();
        const mem = process.memoryUsage();
        const w: Window = {
          t: Math.round(elapsed), sent: winSent, ok: winOk, errors: winErr, p50: pct(lat, 50), p99: pct(lat, 99),
          rssMiB: mem.rss / MiB, heapMiB: mem.heapUsed / MiB, eldP99, eldMax,
        };
        windows.push(w);
        console.log(
          `${String(w.t).padStart(6)} ${String(w.sent).padStart(6)} ${String(w.ok).padStart(6)} ${String(w.errors).padStart(4)} ${w.p50.toFixed(2).padStart(7)} ${w.p99.toFixed(2).padStart(7)} ` +
            `${w.rssMiB.toFixed(1).padStart(8)} ${w.heapMiB.toFixed(1).padStart(13)} ${w.eldP99.toFixed(2).padStart(10)} ${w.eldMax.toFixed(2).padStart(10)}`,
        );
        winLat = [];
        winSent = winOk = winErr = 0;
        eld.reset();
        nextWindow += WINDOW_S;
      }
      if (elapsed >= SECONDS) resolve();
      else setTimeout(tick, 2);
    };
    tick();
  });
  await Promise.all(inflight);
  eld.disable();
  agent.destroy();
  await server.close();

  // Trend over the windows after warm-up (JIT, allocator, ORT arenas, queues built up while cold): the
  // first quarter of the run, at least one window.
  const warm = Math.max(1, Math.floor(windows.length / 4));
  const steady = windows.slice(warm);
  const xs = steady.map((w) => w.t);
  const trends = {
    rssMiBPerMin: slopePerMin(xs, steady.map((w) => w.rssMiB)),
    heapMiBPerMin: slopePerMin(xs, steady.map((w) => w.heapMiB)),
    p99MsPerMin: slopePerMin(xs, steady.map((w) => w.p99)),
    eldP99MsPerMin: slopePerMin(xs, steady.map((w) => w.eldP99)),
  };
  const first = steady[0];
  const last = steady[steady.length - 1];
  const lost = sent - answered;
  console.log(`\nrequests: sent ${sent}, answered ${answered}, errors ${errors}, lost ${lost}`);
  console.log(`trend: least-squares slope per minute over ${steady.length} windows after ${warm} warm-up`);
  let pass = lost === 0 && errors === 0 && steady.length >= 2;
  const ratio = (k: keyof Window) => (first && last ? (Number(last[k]) / Number(first[k])).toFixed(2) : 'n/a');
  const median = (v: number[]) => pct([...v].sort((a, b) => a - b), 50);
  const half = Math.floor(steady.length / 2);
  const laterWithin = (k: 'p99' | 'eldP99') => {
    const early = median(steady.slice(0, half).map((w) => w[k]));
    const later = median(steady.slice(half).map((w) => w[k]));
    return { ok: !(later > early * 1.5 + 20), text: `median ${early.toFixed(1)} -> ${later.toFixed(1)} ms` };
  };
  const p99Check = laterWithin('p99');
  const eldCheck = laterWithin('eldP99');
  const rows: [string, number, boolean, string][] = [
    ['rss MiB/min', trends.rssMiBPerMin, trends.rssMiBPerMin < LIMITS.rssMiBPerMin, `limit ${LIMITS.rssMiBPerMin}; last/first ${ratio('rssMiB')}`],
    ['live heap MiB/min', trends.heapMiBPerMin, trends.heapMiBPerMin < LIMITS.heapMiBPerMin, `limit ${LIMITS.heapMiBPerMin}; last/first ${ratio('heapMiB')}`],
    ['p99 latency ms/min', trends.p99MsPerMin, p99Check.ok, `${p99Check.text} (later half <= 1.5x + 20 ms)`],
    ['event-loop p99 ms/min', trends.eldP99MsPerMin, eldCheck.ok, `${eldCheck.text} (later half <= 1.5x + 20 ms)`],
  ];
  for (const [name, v, ok, note] of rows) {
    pass &&= ok;
    console.log(`  ${name.padEnd(24)} ${v.toFixed(3).padStart(9)}  ${ok ? 'ok  ' : 'FAIL'}  ${note}`);
  }
  console.log(pass ? 'soak: PASS (no growth trend, nothing lost)' : 'soak: FAIL');
  process.exitCode = pass ? 0 : 1;
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
