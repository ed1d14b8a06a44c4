/**
 * Small load drivers for the reliability tests: open loop (fixed offered rate, requests fired without
 * waiting for answers) and closed loop (N clients, each waits for its answer), through inject() so the
 * client costs the shared cores as little as possible. Every request is recorded with its outcome.
 */
import type { FastifyInstance } from 'fastify';
import { percentileOf } from '@inferscope/core/stats';

export interface Outcome {
  id: string;
  status: number;
  latencyMs: number;
  error?: string;
  /** the id the server echoed (JSON answers or the binary header) */
  echoed?: string;
}

export interface Body {
  url: string;
  headers: Record<string, string>;
  body: Buffer;
}

/** Binary-extension infer body for cnn_classifier-shaped models: `batch` images of 3x64x64 FP32. */
export function imageBody(model: string, batch: number, id: string): Body {
  const data = Buffer.alloc(batch * 3 * 64 * 64 * 4);
  const f = new Float32Array(data.buffer, data.byteOffset, data.byteLength / 4);
  for (let i = 0; i < f.length; i += 97) f[i] = (i % 13) / 13;
  const header = Buffer.from(
    JSON.stringify({ id, inputs: [{ name: 'image', datatype: 'FP32', shape: [batch, 3, 64, 64], parameters: { binary_data_size: data.byteLength } }] }),
  );
  return {
    url: `/v2/models/${model}/infer`,
    headers: { 'content-type': 'application/octet-stream', 'inference-header-content-length': String(header.byteLength) },
    body: Buffer.concat([header, data]),
  };
}

/** JSON infer body for mlp_classifier-shaped models (784 features per row). */
export function mlpBody(model: string, rows: number, id: string, version?: string): Body {
  const data = new Array<number>(rows * 784).fill(0).map((_, i) => (i % 7) / 7);
  return {
    url: version ? `/v2/models/${model}/versions/${version}/infer` : `/v2/models/${model}/infer`,
    headers: { 'content-type': 'application/json' },
    body: Buffer.from(JSON.stringify({ id, inputs: [{ name: 'input', datatype: 'FP32', shape: [rows, 784], data }] })),
  };
}

export async function send(app: FastifyInstance, id: string, b: Body): Promise<Outcome> {
  const t0 = performance.now();
  const res = await app.inject({ method: 'POST', url: b.url, headers: b.headers, payload: b.body });
  const latencyMs = performance.now() - t0;
  let echoed: string | undefined;
  let error: string | undefined;
  const ct = String(res.headers['content-type'] ?? '');
  const hl = res.headers['inference-header-content-length'];
  try {
    const text = hl ? res.rawPayload.subarray(0, Number(hl)).toString('utf8') : ct.includes('json') ? res.body : '';
    const doc = text ? (JSON.parse(text) as { id?: string; error?: string }) : {};
    echoed = doc.id;
    error = doc.error;
  } catch {
    error = `unparsable answer (${ct})`;
  }
  return { id, status: res.statusCode, latencyMs, error, echoed };
}

/** Fires `rate` requests per second for `seconds`, without waiting; resolves when all are answered. */
export async function openLoop(app: FastifyInstance, rate: number, seconds: number, make: (i: number) => Body, prefix = 'o'): Promise<{ outcomes: Outcome[]; offered: number; elapsedS: number }> {
  const pending: Promise<Outcome>[] = [];
  const t0 = performance.now();
  await new Promise<void>((resolve) => {
    const tick = () => {
      const elapsed = (performance.now() - t0) / 1000;
      const due = Math.min(Math.floor(elapsed * rate), Math.floor(seconds * rate));
      while (pending.length < due) {
        const i = pending.length;
        pending.push(send(app, `${prefix}${i}`, make(i)));
      }
      if (elapsed >= seconds) resolve();
      else setTimeout(tick, 2);
    };
    tick();
  });
  const elapsedS = (performance.now() - t0) / 1000;
  return { outcomes: await Promise.all(pending), offered: pending.length / elapsedS, elapsedS };
}

/** `concurrency` clients, each sending its next request when the previous is answered. */
export async function closedLoop(app: FastifyInstance, concurrency: number, seconds: number, make: (i: number) => Body, prefix = 'c'): Promise<{ outcomes: Outcome[]; rate: number }> {
  const outcomes: Outcome[] = [];
  const t0 = performance.now();
  let n = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() - t0 < seconds * 1000) {
        const i = n++;
        outcomes.push(await send(app, `${prefix}${i}`, make(i)));
      }
    }),
  );
  return { outcomes, rate: outcomes.length / ((performance.now() - t0) / 1000) };
}

/** p in percent, of values in any order: core's nearest-rank percentile (NaN for none: nothing measured). */
export function percentile(values: number[], p: number): number {
  return values.length === 0 ? NaN : percentileOf(values, p / 100);
}
