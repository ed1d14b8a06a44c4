/**
 * gRPC ModelInfer (raw_input_contents) vs HTTP binary with ONE external C load generator for both:
 * h2load (nghttp2-client), so neither side measures a Node client (grpc-js needs ~250 µs of CPU per call
 * and set the pace in wrk.ts's closed-loop comparison).
 *   - gRPC: h2load over HTTP/2 (h2c) POSTs a fixed body to /inference.GRPCInferenceService/ModelInfer: the
 *     gRPC length-prefixed frame (flag 0, 4-byte big-endian length) of a serialized ModelInferRequest,
 *     with `content-type: application/grpc` and `te: trailers`.
 *   - HTTP binary: `h2load --h1` POSTs the KServe binary body (FP32 [1,784]) to /v2/models/mlp_batched/infer,
 *     and wrk as in wrk.ts, against the same server.
 * Same model (mlp_batched of makeBenchRepository), same concurrency (-c32, one request in flight per
 * connection), alternating rounds, median ratios, server CPU (this process, all threads) per request.
 * h2load only sees HTTP status 200 for gRPC (an error travels in the grpc-status trailer), so every round
 * checks the server's own statistics: success count grew by exactly the requests sent, failures by none.
 *
 *   node --import tsx bench/serve/h2load.ts [--rounds 5] [--requests 30000] [--seconds 4] [--c 32] [--streams 1] [--live true]
 *   node --cpu-prof --cpu-prof-dir=prof --import tsx bench/serve/h2load.ts --rounds 1 --only grpc   # profile
 *
 * h2load comes from Debian's nghttp2-client; when absent this script installs it (apt-get, as root).
 * Never in CI or tests: this is a benchmark.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../../apps/server/src/app';
import { benchInput, makeBenchRepository } from './bench-models';
import { binaryRequest } from '../../test/kserve/wire';
import { arg } from '../args';
import { runWrk } from './wrk-client';
import { ensureH2load, grpcInferBody, h2load } from './h2load-client';
import { mainThreadCpuUs } from './thread-cpu';
import { median } from '../median';
import { serverCounts, settledCounts } from './server-counts';
import { hostConditions } from '../host';

const rounds = Number(arg('--rounds', '5'));
const requests = Number(arg('--requests', '30000'));
const seconds = Number(arg('--seconds', '4'));
const c = Number(arg('--c', '32'));
const live = arg('--live', 'true') !== 'false';
const only = arg('--only', 'all'); // all | grpc | http
// gRPC streams per HTTP/2 connection (c/streams connections, the same c requests in flight): 1 = one call
// per connection like HTTP/1.1's; gRPC clients usually multiplex calls over few channels
const streams = Number(arg('--streams', '1'));
const MODEL = 'mlp_batched';


async function main(): Promise<void> {
  ensureH2load();
  const repo = makeBenchRepository(1, [MODEL]);
  const server = await buildApp({ modelRepositories: [repo], httpPort: 0, metricsPort: null, grpcPort: 0, host: '127.0.0.1', live });
  const { url, grpcAddress } = await server.listen();
  const { body, headerLength } = binaryRequest([benchInput], { binaryOutput: true });
  const httpBodyFile = join(tmpdir(), `inferscope-h2load-http-${process.pid}.bin`);
  const grpcBodyFile = join(tmpdir(), `inferscope-h2load-grpc-${process.pid}.bin`);
  writeFileSync(httpBodyFile, body);
  writeFileSync(grpcBodyFile, grpcInferBody(MODEL, benchInput));
  const inferUrl = `${url}/v2/models/${MODEL}/infer`;
  const grpcUrl = `http://${grpcAddress}/inference.GRPCInferenceService/ModelInfer`;
  const common = (n: number) => ['-n', String(n), '-c', String(c), '-m', '1', '-t', '1'];
  const grpcArgs = (n: number) => ['-n', String(n), '-c', String(Math.max(1, Math.round(c / streams))), '-m', String(streams), '-t', '1', '-d', grpcBodyFile, '-H', 'content-type: application/grpc', '-H', 'te: trailers', grpcUrl];
  const httpArgs = (n: number) => [...common(n), '--h1', '-d', httpBodyFile, '-H', 'content-type: application/octet-stream', '-H', `inference-header-content-length: ${headerLength}`, inferUrl];

  const counts = () => serverCounts(url, MODEL);
  const settled = () => settledCounts(url, MODEL);
  /** one h2load run with the server's CPU and the statistics check around it */
  const measured = async (what: string, args: string[], n: number) => {
    const before = await settled();
    const cpu0 = process.cpuUsage();
    const main0 = mainThreadCpuUs();
    const r = await h2load(args);
    const cpu = process.cpuUsage(cpu0);
    const mainUs = mainThreadCpuUs() - main0;
    const after = await counts();
    const ok = after.success - before.success;
    const failed = after.fail - before.fail;
    // every call answered with success: a gRPC error still has HTTP status 200, but not a success count
    // (a straggler of the previous wrk run, answered on a busy machine after it ended, may add up to c)
    if (r.succeeded !== n || ok < n || ok > n + c || failed !== 0) {
      throw new Error(`${what}: h2load ${r.succeeded}/${n} succeeded (${r.failed} failed, ${r.errored} errored), server statistics: +${ok} success, +${failed} fail`);
    }
    return { ...r, cpu_us_per_req: (cpu.user + cpu.system) / n, main_us_per_req: mainUs / n, avg_batch: (after.inferences - before.inferences) / Math.max(1, after.executions - before.executions) };
  };

  console.log(`h2load: HTTP -c${c} -m1, gRPC -c${Math.max(1, Math.round(c / streams))} -m${streams}; ${requests} requests per run, ${rounds} rounds, ${MODEL}, live gateway ${live ? 'on' : 'off'}, ${hostConditions()}`);
  try {
    // warm-up (session warm-up, JIT, connections): not measured
    await measured('warm-up gRPC', grpcArgs(3000), 3000);
    await measured('warm-up HTTP', httpArgs(3000), 3000);
    const rate: number[] = [];
    const rateWrk: number[] = [];
    const cpuRatio: number[] = [];
    const mainRatio: number[] = [];
    console.log('round | gRPC req/s | mean ms | server CPU µs/req (main thread) | avg batch | HTTP h1 req/s | mean ms | server CPU µs/req (main thread) | avg batch | wrk HTTP req/s | p99 ms | server CPU µs/req | gRPC/HTTP(h2load) | gRPC/HTTP(wrk) | CPU gRPC/HTTP');
    for (let round = 1; round <= rounds; round++) {
      // alternate which protocol goes first, so a drift in machine load does not favour one of them
      const order = round % 2 ? ['grpc', 'http'] : ['http', 'grpc'];
      const res: Record<string, Awaited<ReturnType<typeof measured>>> = {};
      for (const p of order) {
        if (only !== 'all' && only !== p) continue;
        res[p] = await measured(p, p === 'grpc' ? grpcArgs(requests) : httpArgs(requests), requests);
      }
      let w: { req_per_s: number; p99_ms: number; cpu: number } | undefined;
      if (only === 'all' || only === 'http') {
        const before = await settled();
        const cpu0 = process.cpuUsage();
        const r = await runWrk(inferUrl, httpBodyFile, headerLength, { c, seconds });
        const cpu = process.cpuUsage(cpu0);
        const after = await settled();
        // wrk stops on a timer and closes its connections with requests in flight: those (at most one per
        // connection) are cancelled by the server, so up to c failures are the harness, more are not
        if (r.non2xx > 0 || after.fail - before.fail > c) throw new Error(`wrk: ${r.non2xx} non-2xx, +${after.fail - before.fail} failures`);
        w = { req_per_s: r.req_per_s, p99_ms: r.p99_ms, cpu: (cpu.user + cpu.system) / (after.success - before.success) };
      }
      const g = res.grpc, h = res.http;
      if (g && h) {
        rate.push(g.req_per_s / h.req_per_s);
        cpuRatio.push(g.cpu_us_per_req / h.cpu_us_per_req);
        mainRatio.push(g.main_us_per_req / h.main_us_per_req);
      }
      if (g && w) rateWrk.push(g.req_per_s / w.req_per_s);
      const f = (x: number | undefined, d = 0) => (x === undefined || Number.isNaN(x) ? '-' : x.toFixed(d));
      console.log(`${round} | ${f(g?.req_per_s)} | ${f(g?.mean_ms, 2)} | ${f(g?.cpu_us_per_req, 1)} (${f(g?.main_us_per_req, 1)}) | ${f(g?.avg_batch, 1)} | ${f(h?.req_per_s)} | ${f(h?.mean_ms, 2)} | ${f(h?.cpu_us_per_req, 1)} (${f(h?.main_us_per_req, 1)}) | ${f(h?.avg_batch, 1)} | ${f(w?.req_per_s)} | ${f(w?.p99_ms, 2)} | ${f(w?.cpu, 1)} | ${f(rate.at(-1), 2)} | ${f(rateWrk.at(-1), 2)} | ${f(cpuRatio.at(-1), 2)}`);
    }
    if (rate.length) {
      console.log(`gRPC raw / HTTP binary, both h2load, c=${c}: req/s median ${median(rate).toFixed(2)} (rounds ${rate.map((x) => x.toFixed(2)).join(', ')}); server CPU per request median ${median(cpuRatio).toFixed(2)}, main thread ${median(mainRatio).toFixed(2)}`);
    }
    if (rateWrk.length) console.log(`gRPC raw (h2load) / HTTP binary (wrk), c=${c}: req/s median ${median(rateWrk).toFixed(2)}`);
    console.log('every request answered with success (server statistics: success count grew by the requests sent, no failures)');
  } finally {
    rmSync(httpBodyFile, { force: true });
    rmSync(grpcBodyFile, { force: true });
    await server.close();
    rmSync(repo, { recursive: true, force: true });
  }
}

await main();
