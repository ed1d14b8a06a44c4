/**
 * HTTP (and gRPC) serving benchmark with EXTERNAL clients, so the client never measures itself:
 *   1. wrk (C, /usr/bin/wrk: `apt-get install -y wrk`) at -c32 POSTs a KServe binary body (FP32 [1,784]) to
 *      InferScope's mlp_batched (dynamic batching) and, in the same run, to a bare Fastify route that
 *      reads the same body and answers a small JSON, and to the architecture's two floors (architecture-floor.ts:
 *      Fastify + one worker thread, once touching the inputs and once running the model with onnxruntime).
 *      Rounds alternate; the result is the median of the per-round ratios.
 *   2. gRPC ModelInfer (raw_input_contents) vs HTTP binary, each from the same kind of client: a Node
 *      process (client-process.mjs: node:http keep-alive vs grpc-js), alternating rounds. No gRPC load
 *      tool is on npm (ghz is a Go binary), so both sides use a Node client in a separate process.
 *
 *   node --import tsx bench/serve/wrk.ts [--rounds 5] [--seconds 5] [--c 32] [--live true] [--instances 1] [--delay-us 2000] [--rule floor|preferred] [--rate 1000] [--only all|http|inferscope|grpc]
 *   node --cpu-prof --cpu-prof-dir=prof --import tsx bench/serve/wrk.ts --rounds 1 --only inferscope   # profile the server
 */
import { spawn } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Fastify from 'fastify';
import { buildApp } from '../../apps/server/src/app';
import { benchInput, makeBenchRepository, useFloorRule } from './bench-models';
import { DEFAULT_MODEL } from './direct-ort';
import { binaryRequest } from '../../test/kserve/wire';
import { arg } from '../args';
import { runWrk, type WrkResult } from './wrk-client';
import { startArchitectureFloor } from './architecture-floor';
import { mainThreadCpuUs } from './thread-cpu';
import { median } from '../median';
import { hostConditions } from '../host';

const rounds = Number(arg('--rounds', '5'));
const seconds = Number(arg('--seconds', '5'));
const c = Number(arg('--c', '32'));
const live = arg('--live', 'true') !== 'false';
const instances = Number(arg('--instances', '1'));
const only = arg('--only', 'all'); // all | http (InferScope and its baselines) | inferscope | grpc | grpc-alone
const baselines = only === 'all' || only === 'http';
// max_queue_delay_microseconds of mlp_batched (the other serve benchmarks use 2000)
const delayUs = Number(arg('--delay-us', '2000'));
// floor: max_batch_size 16, no preferred sizes (the floors' own rule); preferred: the other serve
// benchmarks' mlp_batched (max 64, preferred 8/16/32: at c=32 Triton's rule forms mostly batches of 8)
const rule = arg('--rule', 'floor');
const here = fileURLToPath(new URL('.', import.meta.url));

/** wrk against this process's server (asynchronously: the server runs on this process's event loop). */
const wrk = (url: string, bodyFile: string, headerLength: number): Promise<WrkResult> => runWrk(url, bodyFile, headerLength, { c, seconds });

function clientProcess(mode: 'http' | 'grpc', address: string, rate?: number): Promise<{ req_per_s: number; p50_ms: number; p99_ms: number; errors: number; client_cpu_share: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(here, 'client-process.mjs'), mode, address, String(c), String(seconds * 1000), '1000'], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...(rate ? { RATE: String(rate) } : {}) } });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop()!)) : reject(new Error(`client exited ${code}`))));
  });
}

/** server process CPU (all threads) per answered request over a client run (1 s warm-up + the window) */
const cpuPer = (cpu: NodeJS.CpuUsage, reqPerS: number) => (cpu.user + cpu.system) / (reqPerS * (seconds + 1));


async function main(): Promise<void> {
  const repo = makeBenchRepository(instances, ['mlp_batched']);
  useFloorRule(repo, delayUs, rule === 'preferred' ? 'preferred' : 'floor');
  const server = await buildApp({ modelRepositories: [repo], httpPort: 0, metricsPort: null, grpcPort: 0, host: '127.0.0.1', live });
  const { url, grpcAddress } = await server.listen();
  const bare = Fastify();
  bare.removeAllContentTypeParsers();
  bare.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 64 << 20 }, (_r, body, done) => done(null, body));
  bare.post('/bare', async (req) => ({ ok: true, bytes: (req.body as Buffer).byteLength }));
  const bareUrl = await bare.listen({ host: '127.0.0.1', port: 0 });
  const floor = await startArchitectureFloor();
  const floorModel = await startArchitectureFloor(DEFAULT_MODEL);

  const { body, headerLength } = binaryRequest([benchInput], { binaryOutput: true });
  const bodyFile = join(tmpdir(), `inferscope-wrk-body-${process.pid}.bin`);
  writeFileSync(bodyFile, body);
  const inferUrl = `${url}/v2/models/mlp_batched/infer`;
  console.log(`wrk -t1 -c${c} -d${seconds}s, ${rounds} rounds, live gateway ${live ? 'on' : 'off'}, ${instances} instance(s), max_queue_delay ${delayUs} µs, batching rule ${rule}, ${hostConditions()}`);
  try {
    // warm-up: the first batches (session warm-up, JIT) are not measured
    if (only !== 'grpc-alone') await wrk(inferUrl, bodyFile, headerLength);
    if (baselines || only === 'inferscope') {
      const ratios: number[] = [];
      const mainCosts: [number, number][] = [];
      const floorRatios: number[] = [];
      const floorModelRatios: number[] = [];
      /** InferScope / the floor with the model, per round (the two runs are seconds apart) */
      const vsFloorModel: number[] = [];
      console.log('round | InferScope req/s | p50 ms | p99 ms | server CPU µs/req (all threads) | main thread µs/req | bare Fastify req/s | p50 ms | main thread µs/req | ratio | architecture floor req/s | main thread µs/req | floor / bare | floor with model req/s | main thread µs/req | floor with model / bare | avg batch: InferScope, floor with model | non-2xx');
      for (let r = 1; r <= rounds; r++) {
        const formed: number[] = [];
        const off = server.bus.on((e) => { if (e.type === 'batch.formed') formed.push(e.size); });
        const cpu0 = process.cpuUsage();
        let main0 = mainThreadCpuUs();
        const ours = await wrk(inferUrl, bodyFile, headerLength);
        const cpu = process.cpuUsage(cpu0);
        const mainPerReq = (mainThreadCpuUs() - main0) / (ours.req_per_s * seconds);
        off();
        const cpuPerReq = (cpu.user + cpu.system) / (ours.req_per_s * seconds);
        main0 = mainThreadCpuUs();
        const base = baselines ? await wrk(`${bareUrl}/bare`, bodyFile, headerLength) : undefined;
        const bareMainPerReq = base ? (mainThreadCpuUs() - main0) / (base.req_per_s * seconds) : NaN;
        main0 = mainThreadCpuUs();
        const fl = baselines ? await wrk(floor.url, bodyFile, headerLength) : undefined;
        const floorMainPerReq = fl ? (mainThreadCpuUs() - main0) / (fl.req_per_s * seconds) : NaN;
        if (fl && base) floorRatios.push(fl.req_per_s / base.req_per_s);
        main0 = mainThreadCpuUs();
        const fm0 = floorModel.formed();
        const fm = baselines ? await wrk(floorModel.url, bodyFile, headerLength) : undefined;
        const floorModelMainPerReq = fm ? (mainThreadCpuUs() - main0) / (fm.req_per_s * seconds) : NaN;
        if (fm && base) floorModelRatios.push(fm.req_per_s / base.req_per_s);
        if (fm) vsFloorModel.push(ours.req_per_s / fm.req_per_s);
        const fm1 = floorModel.formed();
        const floorModelBatch = (fm1.requests - fm0.requests) / Math.max(1, fm1.batches - fm0.batches);
        const ratio = base ? ours.req_per_s / base.req_per_s : NaN;
        if (base) ratios.push(ratio);
        if (base) mainCosts.push([mainPerReq, bareMainPerReq]);
        const avg = formed.reduce((a, b) => a + b, 0) / Math.max(1, formed.length);
        console.log(`${r} | ${ours.req_per_s.toFixed(0)} | ${ours.p50_ms.toFixed(2)} | ${ours.p99_ms.toFixed(2)} | ${cpuPerReq.toFixed(1)} | ${mainPerReq.toFixed(1)} | ${base?.req_per_s.toFixed(0) ?? '-'} | ${base?.p50_ms.toFixed(2) ?? '-'} | ${bareMainPerReq.toFixed(1)} | ${ratio.toFixed(2)} | ${fl?.req_per_s.toFixed(0) ?? '-'} | ${floorMainPerReq.toFixed(1)} | ${fl && base ? (fl.req_per_s / base.req_per_s).toFixed(2) : '-'} | ${fm?.req_per_s.toFixed(0) ?? '-'} | ${floorModelMainPerReq.toFixed(1)} | ${fm && base ? (fm.req_per_s / base.req_per_s).toFixed(2) : '-'} | ${avg.toFixed(1)}, ${fm ? floorModelBatch.toFixed(1) : '-'} | ${ours.non2xx + (base?.non2xx ?? 0)}`);
      }
      if (ratios.length) {
        console.log(`InferScope / bare Fastify (wrk, c=${c}): median ${median(ratios).toFixed(2)} (rounds ${ratios.map((x) => x.toFixed(2)).join(', ')})`);
        console.log(`architecture floor (Fastify + one worker thread, no InferScope; architecture-floor.ts) / bare Fastify: median ${median(floorRatios).toFixed(2)} (rounds ${floorRatios.map((x) => x.toFixed(2)).join(', ')}); InferScope / floor ${(median(ratios) / median(floorRatios)).toFixed(2)}`);
        console.log(`architecture floor with the model (the same, its worker running mlp_classifier with onnxruntime; floor-ort-worker.mjs) / bare Fastify: median ${median(floorModelRatios).toFixed(2)} (rounds ${floorModelRatios.map((x) => x.toFixed(2)).join(', ')}); InferScope / floor with model ${(median(ratios) / median(floorModelRatios)).toFixed(2)}; per round ${median(vsFloorModel).toFixed(2)} (${vsFloorModel.map((x) => x.toFixed(2)).join(', ')})`);
        console.log(`main-thread CPU per request: InferScope median ${median(mainCosts.map((m) => m[0])).toFixed(1)} µs, bare Fastify ${median(mainCosts.map((m) => m[1])).toFixed(1)} µs; bare / ours ${median(mainCosts.map((m) => m[1] / m[0])).toFixed(2)}`);
      }
    }
    if (only === 'grpc-alone') {
      // profiling aid: the gRPC client alone
      const cpu0 = process.cpuUsage();
      const g = await clientProcess('grpc', grpcAddress!);
      console.log(`gRPC alone: ${g.req_per_s.toFixed(0)} req/s, server CPU ${cpuPer(process.cpuUsage(cpu0), g.req_per_s).toFixed(1)} µs/req`);
    }
    if (only === 'all' || only === 'grpc') {
      const ratios: number[] = [];
      console.log(`\nround | HTTP binary req/s (Node client process) | p50 ms | client CPU | server CPU µs/req | gRPC raw req/s (Node client process) | p50 ms | client CPU | server CPU µs/req | gRPC / HTTP | errors`);
      for (let r = 1; r <= rounds; r++) {
        let cpu0 = process.cpuUsage();
        const h = await clientProcess('http', inferUrl);
        const hCpu = cpuPer(process.cpuUsage(cpu0), h.req_per_s);
        cpu0 = process.cpuUsage();
        const g = await clientProcess('grpc', grpcAddress!);
        const gCpu = cpuPer(process.cpuUsage(cpu0), g.req_per_s);
        ratios.push(g.req_per_s / h.req_per_s);
        console.log(`${r} | ${h.req_per_s.toFixed(0)} | ${h.p50_ms.toFixed(2)} | ${h.client_cpu_share.toFixed(2)} | ${hCpu.toFixed(1)} | ${g.req_per_s.toFixed(0)} | ${g.p50_ms.toFixed(2)} | ${g.client_cpu_share.toFixed(2)} | ${gCpu.toFixed(1)} | ${(g.req_per_s / h.req_per_s).toFixed(2)} | ${h.errors + g.errors}`);
      }
      console.log(`gRPC raw / HTTP binary (Node client processes, c=${c}): median ${median(ratios).toFixed(2)} (rounds ${ratios.map((x) => x.toFixed(2)).join(', ')})`);
      // The same offered load for both (so the same batch sizes): the server's own CPU per request.
      const rate = Number(arg('--rate', '1000'));
      const cpuRatios: number[] = [];
      console.log(`\nround | open loop ${rate}/s: HTTP req/s | server CPU µs/req | gRPC req/s | server CPU µs/req | gRPC / HTTP CPU`);
      for (let r = 1; r <= rounds; r++) {
        let cpu0 = process.cpuUsage();
        const h = await clientProcess('http', inferUrl, rate);
        const hCpu = cpuPer(process.cpuUsage(cpu0), h.req_per_s);
        cpu0 = process.cpuUsage();
        const g = await clientProcess('grpc', grpcAddress!, rate);
        const gCpu = cpuPer(process.cpuUsage(cpu0), g.req_per_s);
        cpuRatios.push(gCpu / hCpu);
        console.log(`${r} | ${h.req_per_s.toFixed(0)} | ${hCpu.toFixed(1)} | ${g.req_per_s.toFixed(0)} | ${gCpu.toFixed(1)} | ${(gCpu / hCpu).toFixed(2)}`);
      }
      console.log(`server CPU per request, gRPC raw / HTTP binary at ${rate}/s: median ${median(cpuRatios).toFixed(2)}`);
    }
  } finally {
    rmSync(bodyFile, { force: true });
    await bare.close();
    await floor.close();
    await floorModel.close();
    await server.close();
    rmSync(repo, { recursive: true, force: true });
  }
}

await main();
