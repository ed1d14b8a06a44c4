// Closed-loop HTTP load in a worker thread (its own event loop, so the client does not steal the
// server's): `concurrency` loops over keep-alive connections, each sending the same request again as
// soon as the previous answer has fully arrived. Plain .mjs so it loads without a TypeScript loader.
import http from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';

const { url, headers, body, concurrency, durationMs, warmupMs } = workerData;
const target = new URL(url);
const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
const payload = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
const reqHeaders = { ...headers, 'content-length': String(payload.byteLength) };

function once() {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const req = http.request(
      { host: target.hostname, port: target.port, path: target.pathname, method: 'POST', agent, headers: reqHeaders },
      (res) => {
        let bytes = 0;
        res.on('data', (c) => (bytes += c.length));
        res.on('end', () => resolve({ ok: res.statusCode === 200, ms: performance.now() - t0, status: res.statusCode, bytes }));
        res.on('error', () => resolve({ ok: false, ms: performance.now() - t0, status: 0, bytes }));
      },
    );
    req.on('error', () => resolve({ ok: false, ms: performance.now() - t0, status: 0, bytes: 0 }));
    // Small request/response pairs: never let Nagle hold a segment back waiting for an ACK.
    req.on('socket', (socket) => socket.setNoDelay(true));
    req.end(payload);
  });
}

const start = performance.now();
const measureFrom = start + warmupMs;
const end = measureFrom + durationMs;
const latencies = [];
let errors = 0;
let firstError;

async function loop() {
  for (;;) {
    const r = await once();
    const now = performance.now();
    if (now > end) return;
    if (now < measureFrom) continue;
    if (r.ok) latencies.push(r.ms);
    else {
      errors++;
      firstError ??= `status ${r.status}`;
    }
  }
}

await Promise.all(Array.from({ length: concurrency }, loop));
agent.destroy();
parentPort.postMessage({ latencies: Float64Array.from(latencies), errors, firstError, seconds: durationMs / 1000 });
