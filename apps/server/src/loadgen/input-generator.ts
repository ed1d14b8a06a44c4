/**
 * Input tensors for generated load, built from the model's config: names and datatypes from `input`,
 * shapes from `dims` (with the batch dimension in front when max_batch_size > 0), variable dims (-1) from
 * the arrival's shape, values from a seeded PRNG so a run is reproducible.
 *
 * Payloads are cached per (batch size, shape): random data per request would make the generator, not the
 * server, the bottleneck, and the scheduler does not care about values.
 */
import { allocateData } from '@inferscope/core/tensor';
import { tritonToKServeDatatype } from '@inferscope/core/config';
import type { InferPayload, KServeDatatype, Tensor } from '@inferscope/core';
import { mulberry32 } from '@inferscope/core/load';

export interface ModelInputSpec {
  name: string;
  datatype: KServeDatatype;
  /** non-batch dims, -1 where variable */
  dims: number[];
}

export interface ModelIO {
  name: string;
  maxBatchSize: number;
  inputs: ModelInputSpec[];
}

/** Reads what the generator needs from a Triton-format config (GET /v2/models/m/config or the manager). */
export function modelIOFromConfig(config: Record<string, unknown>): ModelIO {
  const name = String(config.name ?? '');
  const maxBatchSize = Number(config.max_batch_size ?? 0);
  const raw = Array.isArray(config.input) ? (config.input as Record<string, unknown>[]) : [];
  if (raw.length === 0) throw new Error(`model '${name}' has no inputs in its config`);
  const inputs = raw.map((i) => {
    const dt = tritonToKServeDatatype(String(i.data_type) as never);
    if (!dt || dt === 'BF16') throw new Error(`input '${String(i.name)}' of '${name}' has datatype ${String(i.data_type)}, which the load generator cannot produce`);
    // `dims` are the wire dims (a `reshape` only changes what the model sees), so they are what we send.
    const dims = ((i.dims as unknown[]) ?? []).map(Number);
    return { name: String(i.name), datatype: dt, dims };
  });
  return { name, maxBatchSize, inputs };
}

/** The seeded generator for test data (core's, shared with scenarios and generated model weights). */
export { mulberry32 };

/**
 * The concrete non-batch dims of one input: fixed dims as configured, each -1 filled from `shape`
 * (the arrival's variable dims, in order), or 16 when the arrival says nothing.
 */
export function concreteDims(spec: ModelInputSpec, shape: readonly number[] | undefined): number[] {
  if (shape && shape.length === spec.dims.length) return spec.dims.map((d, i) => (d >= 0 ? d : shape[i]));
  let k = 0;
  return spec.dims.map((d) => (d >= 0 ? d : shape?.[k++] ?? 16));
}

function fill(datatype: KServeDatatype, count: number, rng: () => number): Tensor['data'] {
  if (datatype === 'BYTES') return Array.from({ length: count }, () => new TextEncoder().encode(`w${Math.floor(rng() * 1000)}`));
  const data = allocateData(datatype, count);
  for (let i = 0; i < count; i++) {
    const r = rng();
    if (data instanceof BigInt64Array || data instanceof BigUint64Array) data[i] = BigInt(Math.floor(r * 1000));
    else if (datatype === 'BOOL') data[i] = r < 0.5 ? 0 : 1;
    else if (datatype === 'FP16') data[i] = 0x3800; // 0.5: half-float bits, the value does not matter
    else if (datatype === 'FP32' || datatype === 'FP64') data[i] = r;
    else data[i] = Math.floor(r * 100); // small non-negative ints fit every integer type and index range
  }
  return data;
}

export class InputGenerator {
  private cache = new Map<string, InferPayload>();
  constructor(
    readonly io: ModelIO,
    private readonly seed = 1,
  ) {}

  /** Input tensors for one request carrying `batchSize` samples. */
  payload(batchSize: number, shape?: readonly number[]): InferPayload {
    if (this.io.maxBatchSize === 0 && batchSize !== 1) throw new Error(`model '${this.io.name}' has max_batch_size 0: each request carries 1 sample`);
    if (this.io.maxBatchSize > 0 && batchSize > this.io.maxBatchSize)
      throw new Error(`batch size ${batchSize} is above max_batch_size ${this.io.maxBatchSize} of '${this.io.name}'`);
    const key = `${batchSize}|${shape?.join(',') ?? ''}`;
    const hit = this.cache.get(key);
    if (hit) return hit;
    const rng = mulberry32(this.seed ^ (batchSize * 2654435761));
    const inputs = this.io.inputs.map((spec): Tensor => {
      const dims = concreteDims(spec, shape);
      const full = this.io.maxBatchSize > 0 ? [batchSize, ...dims] : dims;
      const count = full.reduce((a, b) => a * b, 1);
      return { name: spec.name, datatype: spec.datatype, shape: full, data: fill(spec.datatype, count, rng) };
    });
    const payload = { inputs };
    if (this.cache.size < 256) this.cache.set(key, payload);
    return payload;
  }

  /**
   * The scheduler's shape key, built like the KServe front end does: the non-batch dims of each input
   * that has variable dims, 'x'-joined, ';' between inputs ('' when every input is fixed).
   */
  shapeKey(shape?: readonly number[]): string {
    return this.io.inputs
      .filter((i) => i.dims.includes(-1))
      .map((i) => concreteDims(i, shape).join('x'))
      .join(';');
  }
}
