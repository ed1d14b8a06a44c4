/**
 * Where generated requests go: the server's real HTTP endpoint (default: the same path a client takes,
 * so the measurement includes parsing and the network stack) or the ModelManager in process (pure
 * scheduler demos, no HTTP cost).
 */
import { Agent, request as httpRequest } from 'node:http';
import { asInferError, errors, type InferPayload, type InferResult, type SchedulerRequest, type Tensor } from '@inferscope/core';
import { AutoSequences, isStateful } from './sequences';
import { InputGenerator, modelIOFromConfig } from './input-generator';
import { RemoteInputs } from './remote-inputs';
import type { InferCall } from './infer-call';

export type { InferCall } from './infer-call';


export interface InferOutcome {
  ok: boolean;
  /** HTTP status (in process: 200, or the SchedulerError's httpStatus) */
  status: number;
  error?: string;
  /** client-side phases in µs when the transport can tell them apart (HTTP) */
  send_us?: number;
  wait_us?: number;
  recv_us?: number;
}

export interface InferTarget {
  readonly kind: 'http' | 'inprocess' | 'grpc';
  /** rejects with a clear message when the model (version) cannot take requests from this target */
  check(model: string, version?: string): Promise<void>;
  infer(call: InferCall): Promise<InferOutcome>;
  close(): void;
}

function jsonData(t: Tensor): unknown[] {
  const d = t.data;
  if (Array.isArray(d)) return d.map((b) => new TextDecoder().decode(b));
  if (d instanceof BigInt64Array || d instanceof BigUint64Array) return Array.from(d, (x) => Number(x));
  return Array.from(d as ArrayLike<number>);
}

function binaryBytes(t: Tensor): Buffer {
  const d = t.data;
  if (Array.isArray(d)) {
    const parts: Buffer[] = [];
    for (const b of d) {
      const len = Buffer.alloc(4);
      len.writeUInt32LE(b.length);
      parts.push(len, Buffer.from(b));
    }
    return Buffer.concat(parts);
  }
  const v = d as ArrayBufferView;
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
}

/** A KServe v2 request body: JSON, or Triton's binary tensor extension (JSON header + raw tensor bytes). */
export function encodeInferBody(
  payload: InferPayload,
  opts: { binary: boolean; priority?: number; timeoutUs?: number; id?: string; sequence?: InferCall['sequence'] },
): { body: Buffer; headers: Record<string, string> } {
  const parameters: Record<string, unknown> = {};
  if (opts.priority !== undefined) parameters.priority = opts.priority;
  if (opts.timeoutUs !== undefined) parameters.timeout = opts.timeoutUs;
  if (opts.sequence) {
    parameters.sequence_id = opts.sequence.id;
    if (opts.sequence.start) parameters.sequence_start = true;
    if (opts.sequence.end) parameters.sequence_end = true;
  }
  if (!opts.binary) {
    const doc = {
      ...(opts.id ? { id: opts.id } : {}),
      ...(Object.keys(parameters).length ? { parameters } : {}),
      inputs: payload.inputs.map((t) => ({ name: t.name, shape: t.shape, datatype: t.datatype, data: jsonData(t) })),
    };
    return { body: Buffer.from(JSON.stringify(doc)), headers: { 'content-type': 'application/json' } };
  }
  const blobs = payload.inputs.map(binaryBytes);
  const header = Buffer.from(
    JSON.stringify({
      ...(opts.id ? { id: opts.id } : {}),
      parameters: { ...parameters, binary_data_output: true },
      inputs: payload.inputs.map((t, i) => ({ name: t.name, shape: t.shape, datatype: t.datatype, parameters: { binary_data_size: blobs[i].length } })),
    }),
  );
  return {
    body: Buffer.concat([header, ...blobs]),
    headers: { 'content-type': 'application/octet-stream', 'inference-header-content-length': String(header.length) },
  };
}

export interface HttpTargetOptions {
  url: string;
  binary?: boolean;
  seed?: number;
  /** sockets kept open; at least the largest concurrency you will use */
  maxSockets?: number;
}

const now = () => performance.now() * 1000;

/** Keep-alive node:http client for KServe v2 infer. Fetches each model's config once to build inputs. */
export class HttpTarget implements InferTarget {
  readonly kind = 'http' as const;
  private agent: Agent;
  private base: URL;
  private readonly inputs: RemoteInputs<{ body: Buffer; headers: Record<string, string> }>;

  constructor(private readonly opts: HttpTargetOptions) {
    this.base = new URL(opts.url);
    this.agent = new Agent({ keepAlive: true, maxSockets: opts.maxSockets ?? 256 });
    this.inputs = new RemoteInputs(
      (model, version) => this.getJson(`/v2/models/${encodeURIComponent(model)}${version ? `/versions/${encodeURIComponent(version)}` : ''}/config`) as Promise<Record<string, unknown>>,
      (call, payload) => encodeInferBody(payload, { binary: opts.binary ?? false, priority: call.priority, timeoutUs: call.timeoutUs, sequence: call.sequence }),
      opts.seed ?? 1,
    );
  }

  /** GET a JSON document from the server (config, statistics). */
  async getJson(path: string): Promise<unknown> {
    const r = await this.send('GET', path, undefined, {});
    if (r.status !== 200) throw new Error(`GET ${path}: HTTP ${r.status} ${r.text}`);
    return JSON.parse(r.text);
  }

  generator(model: string, version?: string): Promise<InputGenerator> {
    return this.inputs.generator(model, version);
  }

  check(model: string, version?: string): Promise<void> {
    return this.inputs.check(model, version);
  }

  async infer(call: InferCall): Promise<InferOutcome> {
    let prepared: { request: { body: Buffer; headers: Record<string, string> }; done(): void };
    try {
      prepared = await this.inputs.request(call);
    } catch (err) {
      return { ok: false, status: 0, error: err instanceof Error ? err.message : String(err) };
    }
    const path = `/v2/models/${encodeURIComponent(call.model)}${call.version ? `/versions/${encodeURIComponent(call.version)}` : ''}/infer`;
    const body = prepared.request;
    const r = await this.send('POST', path, body.body, body.headers).finally(() => prepared.done());
    if (r.status === 200) return { ok: true, status: 200, send_us: r.send_us, wait_us: r.wait_us, recv_us: r.recv_us };
    let error = r.text;
    try {
      error = String((JSON.parse(r.text) as { error?: unknown }).error ?? r.text);
    } catch {
      /* not JSON: keep the text */
    }
    return { ok: false, status: r.status, error, send_us: r.send_us, wait_us: r.wait_us, recv_us: r.recv_us };
  }

  private send(method: string, path: string, body: Buffer | undefined, headers: Record<string, string>) {
    return new Promise<{ status: number; text: string; send_us: number; wait_us: number; recv_us: number }>((resolve) => {
      const t0 = now();
      let t1 = t0;
      let t2 = t0;
      const req = httpRequest(
        {
          host: this.base.hostname,
          port: this.base.port || 80,
          method,
          path,
          agent: this.agent,
          headers: body ? { ...headers, 'content-length': String(body.length) } : headers,
        },
        (res) => {
          t2 = now();
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const t3 = now();
            // Only error bodies are decoded: success bodies can be large binary tensors we do not need.
            const status = res.statusCode ?? 0;
            resolve({ status, text: status === 200 && method === 'POST' ? '' : Buffer.concat(chunks).toString('utf8'), send_us: t1 - t0, wait_us: t2 - t1, recv_us: t3 - t2 });
          });
          res.on('error', (err) => resolve({ status: 0, text: err.message, send_us: t1 - t0, wait_us: t2 - t1, recv_us: 0 }));
        },
      );
      req.on('error', (err) => resolve({ status: 0, text: `connection error: ${err.message}`, send_us: 0, wait_us: 0, recv_us: 0 }));
      req.end(body, () => {
        t1 = now();
      });
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

/** The manager's infer, as the KServe handler would call it, minus HTTP. */
export interface InProcessManager {
  get(name: string, version?: string): { version: string; config: unknown } | undefined;
  infer(name: string, version: string | undefined, req: SchedulerRequest<InferPayload>): Promise<InferResult>;
}

export class InProcessTarget implements InferTarget {
  readonly kind = 'inprocess' as const;
  private generators = new Map<string, InputGenerator>();
  /** per stateful model version: adds sequence fields to calls that came without (sequences.ts) */
  private sequencers = new Map<string, AutoSequences>();
  constructor(
    private readonly manager: InProcessManager,
    private readonly seed = 1,
  ) {}

  private generator(model: string, version?: string): InputGenerator {
    const key = `${model}/${version ?? ''}`;
    let g = this.generators.get(key);
    if (!g) {
      const served = this.manager.get(model, version);
      if (!served) throw version ? errors.UNKNOWN_VERSION(model, version) : errors.UNKNOWN_MODEL(model);
      g = new InputGenerator(modelIOFromConfig(served.config as Record<string, unknown>), this.seed);
      this.generators.set(key, g);
      if (isStateful(served.config)) this.sequencers.set(key, new AutoSequences(this.seed));
    }
    return g;
  }

  async check(model: string, version?: string): Promise<void> {
    this.generator(model, version);
  }

  async infer(asked: InferCall): Promise<InferOutcome> {
    let done = (): void => undefined;
    try {
      const gen = this.generator(asked.model, asked.version);
      const taken = this.sequencers.get(`${asked.model}/${asked.version ?? ''}`)?.take(asked) ?? { call: asked, done };
      const call = taken.call;
      done = taken.done;
      const seq = call.sequence;
      await this.manager.infer(call.model, call.version, {
        batchSize: gen.io.maxBatchSize > 0 ? call.batchSize : 1,
        shapeKey: gen.shapeKey(call.shape),
        priority: call.priority,
        timeoutUs: call.timeoutUs,
        payload: gen.payload(call.batchSize, call.shape),
        ...(seq ? { sequence: { id: typeof seq.id === 'number' ? BigInt(seq.id) : seq.id, start: seq.start, end: seq.end } } : {}),
      });
      return { ok: true, status: 200 };
    } catch (err) {
      const e = asInferError(err);
      return { ok: false, status: e.httpStatus, error: e.message };
    } finally {
      done();
    }
  }

  close(): void {}
}
