/**
 * The dynamic_batching fields a live patch may change, in one list for everyone who checks or applies a
 * patch (control validation, the model manager, the scheduler, A/B restore).
 */
export const DYNAMIC_BATCHING_FIELDS = [
  'max_queue_delay_microseconds',
  'preferred_batch_size',
  'default_priority_level',
  'priority_levels',
  'default_queue_policy',
  'priority_queue_policy',
  'preserve_ordering',
] as const;
export type DynamicBatchingField = (typeof DYNAMIC_BATCHING_FIELDS)[number];
/** Patch fields: the dynamic_batching ones plus the model-level max_batch_size. */
export const BATCHING_PATCH_FIELDS = [...DYNAMIC_BATCHING_FIELDS, 'max_batch_size'] as const;

export interface DynamicBatchingPatch {
  max_queue_delay_microseconds?: number;
  preferred_batch_size?: number[];
  max_batch_size?: number;
  default_priority_level?: number;
  priority_levels?: number;
  default_queue_policy?: Record<string, unknown>;
  priority_queue_policy?: Record<string, Record<string, unknown>>;
  preserve_ordering?: boolean;
}

