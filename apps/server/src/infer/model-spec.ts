/**
 * The slice of a model's (normalised) config the KServe codec validates against, derived once per config
 * object: input/output names, KServe datatypes, dims, max_batch_size. Triton validates requests against
 * `dims` (never `reshape`: that is the backend's business), and so do we.
 */
import type { KServeDatatype } from '@inferscope/core';
import type { ModelConfig } from '@inferscope/core/config';
import { tritonToKServeDatatype } from '@inferscope/core/config';

export interface IOSpec {
  name: string;
  /** undefined when the config uses a type our tensors cannot carry (BF16): such inputs are refused */
  datatype: KServeDatatype | undefined;
  /** the config's spelling for messages, e.g. 'FP32' or 'BF16' */
  datatypeName: string;
  dims: number[];
  optional: boolean;
  isShapeTensor: boolean;
  /** true when some dim is -1: requests with different values cannot share a batch */
  variable: boolean;
}

export interface ModelSpec {
  name: string;
  version: string;
  maxBatchSize: number;
  inputs: Map<string, IOSpec>;
  inputList: IOSpec[];
  outputs: Map<string, IOSpec>;
  requiredInputCount: number;
  /** some input has a variable dim, so the scheduler needs a real shape key */
  variableShapes: boolean;
}

function ioSpec(io: { name?: string; data_type?: string; dims?: number[]; optional?: boolean; is_shape_tensor?: boolean }): IOSpec {
  const kserve = io.data_type ? tritonToKServeDatatype(io.data_type as never) : undefined;
  const dims = io.dims ?? [];
  return {
    name: io.name ?? '',
    datatype: kserve === 'BF16' ? undefined : kserve,
    datatypeName: kserve ?? String(io.data_type ?? 'INVALID').replace(/^TYPE_/, ''),
    dims,
    optional: io.optional === true,
    isShapeTensor: io.is_shape_tensor === true,
    variable: dims.some((d) => d === -1),
  };
}

export function buildModelSpec(name: string, version: string, config: ModelConfig): ModelSpec {
  const inputList = (config.input ?? []).map(ioSpec);
  const outputs = new Map((config.output ?? []).map((o) => [o.name ?? '', ioSpec(o)] as const));
  return {
    name,
    version,
    maxBatchSize: config.max_batch_size ?? 0,
    inputs: new Map(inputList.map((i) => [i.name, i] as const)),
    inputList,
    outputs,
    requiredInputCount: inputList.filter((i) => !i.optional).length,
    variableShapes: inputList.some((i) => i.variable),
  };
}

// Specs are cached per config object. A config changed live is a new object (the manager builds a new
// config and validates it like a file); max_batch_size is compared too in case one is edited in place.
const cache = new WeakMap<ModelConfig, ModelSpec>();

export function modelSpecFor(name: string, version: string, config: ModelConfig): ModelSpec {
  const hit = cache.get(config);
  if (hit && hit.name === name && hit.version === version && hit.maxBatchSize === (config.max_batch_size ?? 0)) {
    return hit;
  }
  const spec = buildModelSpec(name, version, config);
  cache.set(config, spec);
  return spec;
}

/** Triton's DimsListToString: `[-1,784]`. */
export function dimsToString(dims: readonly number[]): string {
  return `[${dims.join(',')}]`;
}
