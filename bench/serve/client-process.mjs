// Closed-loop load from a SEPARATE process (so the client never shares the server's event loop):
// `concurrency` loops, each sending the same inference again as soon as the previous answer arrived, over
// HTTP (node:http keep-alive, KServe binary extension) or gRPC (grpc-js ModelInfer, raw_input_contents,
// the server's own .proto). Prints one JSON line: req/s, p50/p99 ms, errors.
//   node client-process.mjs http|grpc ADDRESS CONCURRENCY DURATION_MS WARMUP_MS
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import grpc from '@grpc/grpc-js';
import protoLoader from '@grpc/proto-loader';

const [mode, address, c, duration, warmup] = process.argv.slice(2);
const concurrency = Number(c);
const data = Buffer.from(new Float32Array(784).map((_, i) => (i % 255) / 255).buffer);

let once;
let close = () => {};
if (mode === 'http') {
  const header = Buffer.from(JSON.stringify({
    inputs: [{ name: 'input', datatype: 'FP32', shape: [1, 784], parameters: { binary_data_size: data.byteLength } }],
    parameters: { binary_data_output: true },
  }));
  const body = Buffer.concat([header, data]);
  const url = new URL(address);
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  close = () => agent.destroy();
  const headers = { 'content-type': 'application/octet-stream', 'inference-header-content-length': String(header.byteLength), 'content-length': String(body.byteLength) };
  once = () => new Promise((resolve) => {
    const req = http.request({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', agent, headers }, (res) => {
      res.on('data', () => {});
      res.on('end', () => resolve(res.statusCode === 200));
      res.on('error', () => resolve(false));
    });
    req.on('socket', (s) => s.setNoDelay(true));
    req.on('error', () => resolve(false));
    req.end(body);
  });
} else {
  const protoDir = fileURLToPath(new URL('../../apps/server/src/grpc/proto', import.meta.url));
  const def = protoLoader.loadSync(`${protoDir}/grpc_service.proto`, { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true, includeDirs: [protoDir] });
  const Service = grpc.loadPackageDefinition(def).inference.GRPCInferenceService;
  // CHANNELS (default 1): connections the calls are spread over ('grpc.use_local_subchannel_pool' keeps
  // them apart), to tell one HTTP/2 connection's limits from the server's
  const channels = Number(process.env.CHANNELS ?? '1');
  const clients = Array.from({ length: channels }, () => new Service(address, grpc.credentials.createInsecure(), { 'grpc.use_local_subchannel_pool': 1 }));
  close = () => clients.forEach((cl) => cl.close());
  const req = { model_name: 'mlp_batched', inputs: [{ name: 'input', datatype: 'FP32', shape: [1, 784] }], raw_input_contents: [data] };
  let k = 0;
  once = () => new Promise((resolve) => clients[k++ % channels].ModelInfer(req, (err) => resolve(!err)));
}

let cpuAtFrom;
const start = performance.now();
const from = start + Number(warmup);
const end = from + Number(duration);
const lat = [];
let errors = 0;
async function loop() {
  for (;;) {
    const t0 = performance.now();
    const ok = await once();
    const t1 = performance.now();
    if (t1 > end) return;
    if (t1 < from) continue;
    cpuAtFrom ??= process.cpuUsage();
    if (ok) lat.push(t1 - t0);
    else errors++;
  }
}
// RATE=N: open loop at N requests/s instead (at most CONCURRENCY in flight), so two protocols can be
// compared at the same load, i.e. the same batch sizes, by the server's CPU per request
async function openLoop(rate) {
  let inFlight = 0;
  let sent = 0;
  const t0 = performance.now();
  const pending = [];
  while (performance.now() < end) {
    const due = Math.floor(((performance.now() - t0) / 1000) * rate);
    while (sent < due && inFlight < concurrency) {
      sent++;
      inFlight++;
      const ts = performance.now();
      pending.push(once().then((ok) => {
        inFlight--;
        const t1 = performance.now();
        if (t1 < from || t1 > end) return;
        cpuAtFrom ??= process.cpuUsage();
        if (ok) lat.push(t1 - ts);
        else errors++;
      }));
    }
    await new Promise((r) => setTimeout(r, 1));
  }
  await Promise.all(pending);
}
if (process.env.RATE) await openLoop(Number(process.env.RATE));
else await Promise.all(Array.from({ length: concurrency }, loop));
close();
lat.sort((a, b) => a - b);
const q = (p) => lat[Math.min(lat.length - 1, Math.floor(p * lat.length))] ?? NaN;
const cpu = process.cpuUsage(cpuAtFrom);
// the client's own CPU share of the window: near 1 means the client, not the server, sets the pace
const clientCpuShare = (cpu.user + cpu.system) / 1000 / Number(duration);
console.log(JSON.stringify({ mode, req_per_s: lat.length / (Number(duration) / 1000), p50_ms: q(0.5), p99_ms: q(0.99), errors, client_cpu_share: clientCpuShare }));
