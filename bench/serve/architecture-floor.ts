/**
 * The floor of InferScope's serving architecture, without InferScope: a Fastify route that reads the
 * binary body, decodes the one input, queues it, and hands batches (up to 16, whatever is queued when the
 * thread is free) to ONE worker thread by postMessage with the batch's buffer transferred; the worker
 * touches the inputs and answers 10 floats per request, which the route sends back as a KServe binary
 * response. No scheduler, statistics, events, validation or onnxruntime. What InferScope adds on top of
 * this (wrk.ts prints both) is the cost of the product; what this costs against a bare route is the cost
 * of Fastify + a worker thread per instance on this host, which no code of ours can remove.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { Worker } from 'node:worker_threads';
import { applyServingHeapFlags } from '../../apps/server/src/memory/heap-tuning';

const WORKER = `
const { parentPort } = require('node:worker_threads');
parentPort.on('message', (m) => {
  const x = new Float32Array(m.data);
  let s = 0;
  for (let i = 0; i < x.length; i += 7) s += x[i];
  const out = new Float32Array(m.n * 10).fill(s);
  parentPort.postMessage({ id: m.id, out: out.buffer }, [out.buffer]);
});`;

interface Waiting { x: Float32Array; send(bytes: Buffer): void }

/** The floor's batching without a transport: what each protocol's floor puts its requests into. */
export interface FloorPump {
  /** queues one sample; `send` gets its 10 output floats (40 bytes) when its batch has run */
  submit(x: Float32Array, send: (bytes: Buffer) => void): void;
  formed(): { batches: number; requests: number };
  close(): Promise<void>;
}

/**
 * `withModel` (a .onnx file of the bundled MLP's signature): the worker runs it with onnxruntime
 * (floor-ort-worker.mjs) instead of touching the inputs, so the floor pays the model's real compute too:
 * what no server of this architecture can go below on this host with this model.
 */
export async function startFloorPump(withModel?: string): Promise<FloorPump> {
  // the server's V8 heap settings are part of the architecture: a floor without them would be measured
  // in a GC mode the server never runs in (apps/server/src/memory/heap-tuning.ts)
  applyServingHeapFlags();
  const worker = withModel
    ? new Worker(new URL('./floor-ort-worker.mjs', import.meta.url), { workerData: { modelFile: withModel }, execArgv: [] })
    : new Worker(WORKER, { eval: true });
  if (withModel) await new Promise((resolve, reject) => { worker.once('message', resolve); worker.once('error', reject); });
  const queue: Waiting[] = [];
  const running = new Map<number, Waiting[]>();
  let busy = false;
  let nextId = 0;
  let requests = 0;
  const pump = () => {
    if (busy || queue.length === 0) return;
    const batch = queue.splice(0, 16);
    requests += batch.length;
    busy = true;
    const data = new Float32Array(batch.length * 784);
    batch.forEach((b, i) => data.set(b.x, i * 784));
    const id = nextId++;
    running.set(id, batch);
    worker.postMessage({ id, n: batch.length, data: data.buffer }, [data.buffer]);
  };
  worker.on('message', (m: { id: number; out: ArrayBuffer }) => {
    const batch = running.get(m.id)!;
    running.delete(m.id);
    busy = false;
    pump();
    batch.forEach((b, i) => b.send(Buffer.from(m.out, i * 40, 40)));
  });
  return {
    submit(x, send) {
      queue.push({ x, send });
      setImmediate(pump);
    },
    formed: () => ({ batches: nextId, requests }),
    close: async () => { await worker.terminate(); },
  };
}

/** The floor over HTTP/1.1: Fastify reading the KServe binary body, answering a KServe binary response. */
export async function startArchitectureFloor(withModel?: string): Promise<{ url: string; formed(): { batches: number; requests: number }; close(): Promise<void> }> {
  const floor = await startFloorPump(withModel);
  const header = Buffer.from(JSON.stringify({ model_name: 'floor', model_version: '1', outputs: [{ name: 'probabilities', datatype: 'FP32', shape: [1, 10], parameters: { binary_data_size: 40 } }] }));
  const app: FastifyInstance = Fastify();
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 64 << 20 }, (_r, body, done) => done(null, body));
  app.post('/floor', (req, reply) => {
    const body = req.body as Buffer;
    const headerLength = Number(req.headers['inference-header-content-length']);
    JSON.parse(body.subarray(0, headerLength).toString('utf8'));
    const x = new Float32Array(784);
    new Uint8Array(x.buffer).set(body.subarray(headerLength, headerLength + 784 * 4));
    floor.submit(x, (bytes) => void reply.header('content-type', 'application/octet-stream').header('inference-header-content-length', String(header.byteLength)).send(Buffer.concat([header, bytes])));
  });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return { url: `${url}/floor`, formed: floor.formed, close: async () => { await app.close(); await floor.close(); } };
}
