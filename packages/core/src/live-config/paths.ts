/**
 * The live paths: every place in a ModelConfig that can change while the model is loaded, as a typed value
 * instead of a dotted string. On the wire (config.changed events, acknowledgements, saveConfig's list) a
 * path is still Triton's field path, e.g. `dynamic_batching.max_queue_delay_microseconds` or
 * `instance_group[1].count`; formatLivePath and parseLivePath are the one pair that converts, and
 * readLivePath / writeLivePath the one place that knows where each path lives in a config.
 */
import { DYNAMIC_BATCHING_FIELDS, type DynamicBatchingField } from './fields';
import { ITERATIVE_KNOB_FIELDS, type IterativeKnobField } from './iterative-knobs';

export type LivePath =
  | { readonly kind: 'max_batch_size' }
  /** the dynamic_batching message itself: appears when a patch creates it */
  | { readonly kind: 'dynamic_batching' }
  | { readonly kind: 'dynamic_batching_field'; readonly field: DynamicBatchingField }
  | { readonly kind: 'instance_count'; readonly group: number }
  /** the response cache switched on or off live (setResponseCache) */
  | { readonly kind: 'response_cache_enable' }
  /** an iterative model's knob: its config parameter (`parameters.max_num_tokens`), a string as Triton's parameters are */
  | { readonly kind: 'parameter'; readonly key: IterativeKnobField };

export const livePath = {
  maxBatchSize: { kind: 'max_batch_size' } as LivePath,
  dynamicBatching: { kind: 'dynamic_batching' } as LivePath,
  batching: (field: DynamicBatchingField): LivePath => ({ kind: 'dynamic_batching_field', field }),
  instanceCount: (group: number): LivePath => ({ kind: 'instance_count', group }),
  responseCache: { kind: 'response_cache_enable' } as LivePath,
  parameter: (key: IterativeKnobField): LivePath => ({ kind: 'parameter', key }),
};

export function formatLivePath(p: LivePath): string {
  switch (p.kind) {
    case 'max_batch_size': return 'max_batch_size';
    case 'dynamic_batching': return 'dynamic_batching';
    case 'dynamic_batching_field': return `dynamic_batching.${p.field}`;
    case 'instance_count': return `instance_group[${p.group}].count`;
    case 'response_cache_enable': return 'response_cache.enable';
    case 'parameter': return `parameters.${p.key}`;
  }
}

const FIELDS = new Set<string>(DYNAMIC_BATCHING_FIELDS);

/** The path a wire string names, or undefined when it names nothing that changes live. */
export function parseLivePath(s: string): LivePath | undefined {
  if (s === 'max_batch_size') return livePath.maxBatchSize;
  if (s === 'dynamic_batching') return livePath.dynamicBatching;
  if (s === 'response_cache.enable') return livePath.responseCache;
  const field = /^dynamic_batching\.([a-z_]+)$/.exec(s)?.[1];
  if (field !== undefined) return FIELDS.has(field) ? livePath.batching(field as DynamicBatchingField) : undefined;
  const key = /^parameters\.([a-z_]+)$/.exec(s)?.[1];
  if (key !== undefined) return (ITERATIVE_KNOB_FIELDS as readonly string[]).includes(key) ? livePath.parameter(key as IterativeKnobField) : undefined;
  const group = /^instance_group\[(\d{1,4})\]\.count$/.exec(s)?.[1];
  if (group !== undefined) return livePath.instanceCount(Number(group));
  return undefined;
}

/** The config shape the paths walk: any config with Triton's field names (a ModelConfig, its JSON form). */
export interface LiveConfigShape {
  max_batch_size?: number;
  dynamic_batching?: object | null;
  instance_group?: readonly { count?: number }[];
  parameters?: Readonly<Record<string, { string_value?: string }>>;
}

/** The value at `p` (undefined when the config does not have it). */
export function readLivePath(config: LiveConfigShape | undefined, p: LivePath): unknown {
  if (!config) return undefined;
  switch (p.kind) {
    case 'max_batch_size': return config.max_batch_size;
    case 'dynamic_batching': return config.dynamic_batching;
    case 'dynamic_batching_field': return (config.dynamic_batching as Record<string, unknown> | null | undefined)?.[p.field];
    case 'instance_count': return config.instance_group?.[p.group]?.count;
    case 'response_cache_enable': return (config as { response_cache?: { enable?: boolean } }).response_cache?.enable;
    case 'parameter': return config.parameters?.[p.key]?.string_value;
  }
}

/**
 * Sets `value` at `p` in `config`, in place, creating the dynamic_batching message when needed. An
 * instance count for a group the config does not list is not written (returns false): a group cannot be
 * made from its count alone.
 */
export function writeLivePath(config: LiveConfigShape, p: LivePath, value: unknown): boolean {
  const c = config as { max_batch_size?: unknown; dynamic_batching?: Record<string, unknown> | null; instance_group?: { count?: unknown }[] };
  switch (p.kind) {
    case 'max_batch_size': c.max_batch_size = value; return true;
    case 'dynamic_batching': c.dynamic_batching = (value ?? null) as Record<string, unknown> | null; return true;
    case 'dynamic_batching_field':
      if (c.dynamic_batching == null) c.dynamic_batching = {};
      c.dynamic_batching[p.field] = value;
      return true;
    case 'instance_count': {
      const group = c.instance_group?.[p.group];
      if (!group) return false;
      group.count = value;
      return true;
    }
    case 'response_cache_enable': {
      const rc = config as { response_cache?: Record<string, unknown> };
      rc.response_cache = { ...rc.response_cache, enable: value };
      return true;
    }
    case 'parameter': {
      const pc = config as { parameters?: Record<string, { string_value?: string }> };
      pc.parameters = { ...pc.parameters, [p.key]: { string_value: String(value) } };
      return true;
    }
  }
}
