/**
 * The knobs of an iterative model (continuous batching, `sequence_batching { iterative_sequence: true }`)
 * that change while it serves, in one table: the config `parameters` key each one is (TensorRT-LLM's
 * name, which a control message, the change list and the saved config.pbtxt all use), what kind of value
 * it takes and its bound. Control validation builds its schema from this table, the dashboard's Live
 * Controls draw their inputs from it, and the live change (iterative/live-change.ts) writes the keys.
 */
import { KV_ADMISSION_POLICIES } from '../kv-cache/block-allocator';
import type { LiveLimitName } from './limits';

export type IterativeKnobField = 'max_num_sequences' | 'max_num_tokens' | 'enable_chunked_context' | 'batch_scheduler_policy' | 'max_tokens_in_paged_kv_cache';

export type IterativeKnob =
  | { readonly field: IterativeKnobField; readonly kind: 'count'; readonly limit: LiveLimitName & IterativeKnobField }
  | { readonly field: IterativeKnobField; readonly kind: 'switch' }
  | { readonly field: IterativeKnobField; readonly kind: 'choice'; readonly values: readonly string[] };

/** In the order the dashboard shows them. */
export const ITERATIVE_KNOBS: readonly IterativeKnob[] = [
  { field: 'max_num_sequences', kind: 'count', limit: 'max_num_sequences' },
  { field: 'max_num_tokens', kind: 'count', limit: 'max_num_tokens' },
  { field: 'max_tokens_in_paged_kv_cache', kind: 'count', limit: 'max_tokens_in_paged_kv_cache' },
  { field: 'enable_chunked_context', kind: 'switch' },
  { field: 'batch_scheduler_policy', kind: 'choice', values: KV_ADMISSION_POLICIES },
];

export const ITERATIVE_KNOB_FIELDS: readonly IterativeKnobField[] = ITERATIVE_KNOBS.map((k) => k.field);

/** What a live change of an iterative model sets (a control message's fields beside action, model, version). */
export type IterativeKnobPatch = {
  max_num_sequences?: number;
  max_num_tokens?: number;
  max_tokens_in_paged_kv_cache?: number;
  enable_chunked_context?: boolean;
  batch_scheduler_policy?: string;
};
