/**
 * The measuring half of gpu-check.sh, against a running server: throughput per batch size for a model
 * (binary KServe requests, closed loop), the server's memory accounting per instance (Prometheus
 * inferscope_instance_memory_bytes), and a live instance-count increase that the GPU budget must refuse.
 *
 *   node --import tsx test/device/gpu-drive.ts throughput URL MODEL 1,8,32,64 [seconds] [concurrency]
 *   node --import tsx test/device/gpu-drive.ts memory METRICS_URL
 *   node --import tsx test/device/gpu-drive.ts add-instances URL MODEL COUNT
 */
import { io } from 'socket.io-client';

const [mode, url, ...rest] = process.argv.slice(2);

function body(batch: number): { buf: Buffer; headerLength: number } {
  const data = new Float32Array(batch * 784).map((_, i) => (i % 255) / 255);
  const header = Buffer.from(JSON.stringify({
    inputs: [{ name: 'input', datatype: 'FP32', shape: [batch, 784], parameters: { binary_data_size: data.byteLength } }],
    outputs: [{ name: 'probabilities', parameters: { binary_data: true } }],
  }));
  return { buf: Buffer.concat([header, Buffer.from(data.buffer)]), headerLength: header.byteLength };
}

async function throughput(model: string, batches: number[], seconds: number, concurrency: number): Promise<void> {
  console.log(`| batch | requests/s | samples/s | errors |`);
  console.log(`|---|---|---|---|`);
  for (const b of batches) {
    const { buf, headerLength } = body(b);
    const headers = { 'content-type': 'application/octet-stream', 'inference-header-content-length': String(headerLength) };
    let done = 0;
    let errors = 0;
    const warm = Date.now() + 1000;
    const end = warm + seconds * 1000;
    await Promise.all(Array.from({ length: concurrency }, async () => {
      while (Date.now() < end) {
        const r = await fetch(`${url}/v2/models/${model}/infer`, { method: "POST", headers, body: new Uint8Array(buf) });
        await r.arrayBuffer();
        if (Date.now() < warm) continue;
        if (r.ok) done++;
        else errors++;
      }
    }));
    console.log(`| ${b} | ${(done / seconds).toFixed(0)} | ${((done * b) / seconds).toFixed(0)} | ${errors} |`);
  }
}

async function memory(metricsUrl: string): Promise<void> {
  const text = await (await fetch(metricsUrl)).text();
  for (const line of text.split('\n')) {
    if (line.startsWith('inferscope_instance_memory_bytes{') || line.startsWith('inferscope_memory_budget_bytes{')) {
      const value = Number(line.slice(line.lastIndexOf(' ') + 1));
      console.log(`${line.slice(0, line.lastIndexOf(' '))}  ${(value / 1024 / 1024).toFixed(1)} MiB`);
    }
  }
}

async function addInstances(model: string, count: number): Promise<void> {
  const socket = io(url, { transports: ['websocket'], reconnection: false });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', reject);
  });
  const ack = await new Promise<unknown>((resolve) => socket.emit('control', { action: 'setInstanceCount', model, count }, resolve));
  console.log(`setInstanceCount ${model} -> ${count}: ${JSON.stringify(ack)}`);
  socket.close();
}

if (mode === 'throughput') await throughput(rest[0], rest[1].split(',').map(Number), Number(rest[2] ?? 5), Number(rest[3] ?? 8));
else if (mode === 'memory') await memory(url);
else if (mode === 'add-instances') await addInstances(rest[0], Number(rest[1]));
else {
  console.error('usage: gpu-drive.ts throughput|memory|add-instances ...');
  process.exit(2);
}
