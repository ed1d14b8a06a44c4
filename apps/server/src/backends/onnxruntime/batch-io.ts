/**
 * Turning a batch of requests into session feeds and the session's outputs back into per-request
 * results: gather each input along dim 0, pick the outputs to fetch, scatter the outputs by each request's
 * row count and keep only what each request asked for.
 */
import type { InferPayload, InferResult, SchedulerRequest, Tensor } from '@inferscope/core';
import type { ModelConfig, ModelInput } from '@inferscope/core/config';
import { tritonToKServeDatatype } from '@inferscope/core/config';
import { concatBatch, splitBatch } from '@inferscope/core/tensor';
import { fromOrtType, toOrtType } from '@inferscope/core/tensor';
import type { WorkerFeed, WorkerOutput } from './instance-worker';

type Batch = readonly SchedulerRequest<InferPayload>[];

/** What a request's tensor must look like for one input: worked out once per config, checked per request. */
interface InputCheck {
  datatype: string;
  /** the dims a request sends, -1 = any (the batch dim first when batching) */
  full: readonly number[];
}

/** per input spec, one table for batching models and one for the others */
const checks = [new WeakMap<ModelInput, InputCheck>(), new WeakMap<ModelInput, InputCheck>()];

function inputCheck(spec: ModelInput, batching: boolean): InputCheck {
  const table = checks[batching ? 1 : 0];
  const known = table.get(spec);
  if (known) return known;
  const dims = spec.dims ?? [];
  const made: InputCheck = { datatype: tritonToKServeDatatype(spec.data_type ?? 'TYPE_INVALID') ?? '', full: batching ? [-1, ...dims] : dims };
  table.set(spec, made);
  return made;
}

function checkTensor(model: string, spec: ModelInput, t: Tensor, batching: boolean): void {
  const { datatype: expected, full } = inputCheck(spec, batching);
  if (t.datatype !== expected) {
    throw new Error(`inference input '${t.name}' data-type is '${t.datatype}', but model '${model}' expects '${expected}'`);
  }
  let ok = t.shape.length === full.length;
  for (let i = 0; ok && i < full.length; i++) ok = full[i] === -1 || full[i] === t.shape[i];
  if (!ok) {
    throw new Error(`unexpected shape for input '${t.name}' for model '${model}'. Expected [${full.join(',')}], got [${t.shape.join(',')}]`);
  }
}

function inputOf(r: SchedulerRequest<InferPayload>, name: string): Tensor | undefined {
  const inputs = r.payload.inputs;
  for (let i = 0; i < inputs.length; i++) if (inputs[i].name === name) return inputs[i];
  return undefined;
}

/**
 * `reshape` in the config: clients send `dims`, the model takes `reshape.shape` (Triton reshapes between
 * the two). One -1 in the target takes whatever the sample's element count leaves.
 */
export function applyReshape(sampleShape: readonly number[], target: readonly number[] | undefined): number[] {
  if (!target) return [...sampleShape];
  const elements = sampleShape.reduce((a, b) => a * b, 1);
  const known = target.reduce((a, d) => (d === -1 ? a : a * d), 1);
  return target.map((d) => (d === -1 ? (known === 0 ? 0 : elements / known) : d));
}

function freshCopy(t: Tensor): Tensor {
  // The feed's buffer is transferred to the worker, so it must be one nobody else holds (an `owned`
  // payload's already is: gatherFeeds passes it on uncopied).
  return { ...t, shape: [...t.shape], data: t.datatype === 'BYTES' ? t.data : (t.data as Float32Array).slice() };
}

const utf8 = new TextDecoder('utf-8');
const toUtf8 = new TextEncoder();

/**
 * BYTES (Triton's TYPE_STRING) to onnxruntime string tensors and back. onnxruntime-node takes and gives
 * JS strings, so the bytes are read as UTF-8: an ONNX string tensor holds text (std::string), and a
 * non-UTF-8 element comes back with replacement characters, as any string op would see it.
 */
function feedData(t: Tensor): ArrayBufferView | string[] {
  return t.datatype === 'BYTES' ? (t.data as Uint8Array[]).map((b) => utf8.decode(b)) : (t.data as ArrayBufferView);
}

function tensorData(o: WorkerOutput): Tensor['data'] {
  return Array.isArray(o.data) ? o.data.map((s) => toUtf8.encode(s)) : (o.data as Tensor['data']);
}

/** Feeds for one batch plus the row count each request contributes. */
export function gatherFeeds(config: ModelConfig, batch: Batch): { feeds: WorkerFeed[]; rows: number[] } {
  const model = config.name ?? 'model';
  const batching = (config.max_batch_size ?? 0) > 0;
  if (!batching && batch.length !== 1) {
    throw new Error(`model '${model}' has max_batch_size 0: each batch must hold exactly one request, got ${batch.length}`);
  }
  let rows: number[] = batch.map(() => 1);
  const feeds: WorkerFeed[] = [];
  (config.input ?? []).forEach((spec, index) => {
    const name = spec.name ?? '';
    const present: Tensor[] = [];
    for (const r of batch) {
      const t = inputOf(r, name);
      if (!t) {
        if (spec.optional) continue;
        throw new Error(`expected ${config.input?.length} inputs but got ${r.payload.inputs.length} inputs for model '${model}': missing input '${name}'`);
      }
      checkTensor(model, spec, t, batching);
      present.push(t);
    }
    if (present.length === 0) return;
    if (present.length !== batch.length) {
      throw new Error(`optional input '${name}' of model '${model}' must be given by every request of a batch or by none`);
    }
    const merged = batching ? concatBatch(present) : batch[0].payload.owned ? present[0] : freshCopy(present[0]);
    if (batching && index === 0) rows = present.map((p) => p.shape[0]);
    const dims = spec.reshape
      ? batching
        ? [merged.shape[0], ...applyReshape(merged.shape.slice(1), spec.reshape.shape)]
        : applyReshape(merged.shape, spec.reshape.shape)
      : merged.shape;
    feeds.push({ name, type: toOrtType(merged.datatype), dims, data: feedData(merged) });
  });
  return { feeds, rows };
}

/** Output names to fetch: the union of what the requests asked for, in config order. */
export function outputsToFetch(config: ModelConfig, batch: Batch): string[] {
  const known = (config.output ?? []).map((o) => o.name ?? '');
  const wanted = new Set<string>();
  for (const r of batch) {
    const asked = r.payload.outputs && r.payload.outputs.length > 0 ? r.payload.outputs : known;
    for (const name of asked) {
      if (!known.includes(name)) {
        throw new Error(`unexpected inference output '${name}' for model '${config.name}' (outputs: ${known.join(', ')})`);
      }
      wanted.add(name);
    }
  }
  return known.filter((n) => wanted.has(n));
}

/** Splits the session's outputs back per request, each request getting only the outputs it asked for. */
export function scatterOutputs(config: ModelConfig, batch: Batch, rows: number[], outputs: WorkerOutput[]): InferResult[] {
  const batching = (config.max_batch_size ?? 0) > 0;
  const specs = new Map((config.output ?? []).map((o) => [o.name, o]));
  const tensors: Tensor[] = outputs.map((o) => {
    // An output with a reshape leaves the model as reshape.shape and goes to clients as dims.
    const spec = specs.get(o.name);
    const shape = spec?.reshape
      ? batching
        ? [o.dims[0], ...applyReshape(o.dims.slice(1), spec.dims)]
        : applyReshape(o.dims, spec.dims)
      : o.dims;
    return { name: o.name, datatype: fromOrtType(o.type), shape, data: tensorData(o) };
  });
  const perOutput = tensors.map((t) => (batching ? splitBatch(t, rows) : [t]));
  const results: InferResult[] = new Array(batch.length);
  for (let i = 0; i < batch.length; i++) {
    const asked = batch[i].payload.outputs;
    const mine: Tensor[] = [];
    for (let k = 0; k < tensors.length; k++) {
      if (!asked || asked.length === 0 || asked.includes(tensors[k].name)) mine.push(perOutput[k][i]);
    }
    results[i] = mine;
  }
  return results;
}
