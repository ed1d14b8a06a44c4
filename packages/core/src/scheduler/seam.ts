/**
 * The scheduler seam: the one interface every scheduler of a model version implements, whatever its
 * shape, and the one rule that picks a model's scheduler from its config.
 *
 * Why one interface: the request path (the server's infer/ folder), unloading (drain, then unload),
 * statistics, live changes and the dashboard all talk to "the model's scheduler" without knowing which
 * one it is, as Triton's core talks to its Scheduler (Enqueue, InflightInferenceCount, Stop) whether it
 * holds a dynamic batcher, a sequence batcher or an ensemble. A new scheduler (the sequence batcher,
 * iterative sequences for generative models) is one more implementation and one more case below; a
 * response cache sits in front of `submit` and a rate limiter between a formed batch and its instance,
 * so neither changes this contract. ARCHITECTURE.md draws where each plugs in.
 */
import type { AutotuneChangeReason } from '../events';
import type { InferPayload, InferResult } from '../tensor/types';
import type { KvBlockMap } from '../kv-cache/block-allocator';
import type { PatchResult } from './reconfigure';
import type { PayloadsView, InstanceSnapshot } from './snapshot';
import type { SchedulerRequest } from './types';
import type { SequenceView } from './sequence/view';

/** Called exactly once per submitted request: (null, result) or (error). */
export type SchedulerSettle<R> = (err: Error | null, result?: R) => void;

export interface Scheduler<P = InferPayload, R = InferResult> {
  start(): Promise<void>;
  enqueue(req: SchedulerRequest<P>): Promise<R>;
  /** the callback form: `settle` is called exactly once; returns the request's id (for cancel) */
  submit(req: SchedulerRequest<P>, settle: SchedulerSettle<R>): string;
  /** takes a still-queued request out (answered 'cancelled'); false when it already runs or was answered */
  cancel(id: string): boolean;
  /** a live change computed by core's planBatchingChange; a scheduler without batching knobs throws */
  applyLiveChange(next: PatchResult, by: string, reason?: AutotuneChangeReason): unknown;
  /** a scheduler without instances of its own (an ensemble) throws */
  setInstanceCount(group: string, count: number, by: string, reason?: AutotuneChangeReason): unknown;
  /** refuses new requests and resolves once every accepted one is answered */
  stop(): Promise<void>;
  snapshot(): SchedulerView;
}

/** The parts of a scheduler's snapshot every scheduler can give (instances and queue depth). */
export interface SchedulerView {
  instances?: InstanceSnapshot[];
  queue_depth?: Record<string, number>;
  payloads?: PayloadsView;
  /** an iterative model's paged KV cache: each block's owner and fill (the KV block map) */
  kv_blocks?: KvBlockMap;
  /** a sequence batcher's slots, backlog and state memory */
  sequence?: SequenceView;
}

/**
 * Which scheduler a model version gets, in Triton's order of precedence: the iteration-level scheduler
 * when `sequence_batching { iterative_sequence: true }`, a sequence batcher when the config has any other
 * `sequence_batching`, the ensemble scheduler for the `ensemble` platform, else the dynamic
 * batcher (with batching off when the config has no `dynamic_batching`: Triton's default scheduler is
 * the same dynamic batcher with batching disabled).
 */
export type SchedulerKind = 'iterative' | 'sequence' | 'ensemble' | 'dynamic';

/** The slice of a model config the choice reads (structural, like config-input.ts). */
export interface SchedulerChoiceInput {
  platform?: string;
  sequence_batching?: unknown;
}

export function schedulerKindFor(config: SchedulerChoiceInput): SchedulerKind {
  // Triton's iterative sequences (a decoupled generative model rescheduled every step): core's iterative/
  if ((config.sequence_batching as { iterative_sequence?: boolean } | undefined)?.iterative_sequence === true) return 'iterative';
  if (config.sequence_batching !== undefined) return 'sequence';
  if (config.platform === 'ensemble') return 'ensemble';
  return 'dynamic';
}
