/**
 * The contract of the iteration-level (continuous, in-flight) scheduler of a generative model: what a
 * request is, the knobs (TensorRT-LLM's names, see README.md), the step handed to an executor, and the
 * events a run emits. Times are microseconds on the scheduler's Clock.
 *
 * The step is designed for two executors: the server's, which runs tiny_lm on onnxruntime (a row is
 * exactly kv-cache's KvStepRow: block table, tokens cached, new tokens, so `buildKvStep` takes the rows
 * as they are), and the simulator's, which charges a cost model for the step's rows and tokens.
 */
import type { KvAdmissionPolicy, KvBlockMap, KvStepRow, KvUsage } from '../kv-cache/index';

export interface GenRequest {
  /** unique among the scheduler's live sequences */
  id: string;
  /** prompt token ids (at least one) */
  prompt: readonly number[];
  /** tokens to generate (at least one): the sequence retires after its max_tokens-th token */
  maxTokens: number;
  /**
   * The model's end-of-text token (TensorRT-LLM's end_id): a sequence that samples it retires there, and
   * the end token itself is not one of its tokens
   */
  endToken?: number;
}

/** continuous (in-flight) batching, or the request-level baseline (a batch fixed until its longest member ends) */
export type GenBatching = 'continuous' | 'static';

export interface IterativeKnobs {
  /** TensorRT-LLM max_batch_size / vLLM max_num_seqs: sequences in one step at most */
  maxNumSequences: number;
  /** TensorRT-LLM max_num_tokens / vLLM max_num_batched_tokens: new tokens (prefill + decode) in one step */
  maxNumTokens: number;
  /** TensorRT-LLM enable_chunked_context: a prompt may be prefilled over several steps */
  enableChunkedContext: boolean;
  /** TensorRT-LLM batch_scheduler_policy */
  policy: KvAdmissionPolicy;
  /** blocks in the KV budget and tokens per block (TensorRT-LLM tokens_per_block) */
  totalBlocks: number;
  blockTokens: number;
}

/** One sequence's part of a step. */
export interface StepRow extends KvStepRow {
  id: string;
  /** prefill: the prompt (or a chunk of it, or a preempted sequence's whole text again); decode: one token */
  kind: 'prefill' | 'decode';
  /** the model's next token is wanted from this row (false for a prefill chunk that is not the last) */
  samples: boolean;
}

export interface StepBatch {
  /** 1, 2, ... per scheduler */
  step: number;
  rows: readonly StepRow[];
  /** new tokens in the step (the sum over rows) */
  tokens: number;
  /**
   * Slots the step carries without work: members of a request-level batch that already finished and
   * still occupy their place until the batch ends (0 under continuous batching). A real executor pads
   * them; the simulator charges them as rows.
   */
  padSlots: number;
}

/** One token per row, in row order: the sampled token where the row samples, else null. */
export type StepTokens = readonly (number | null)[];

export interface StepExecutor {
  /**
   * Run one step and call `done` exactly once: (null, tokens) or (error). The callback form keeps a
   * simulation synchronous inside its VirtualClock timer; the server resolves it from a promise.
   */
  runStep(batch: StepBatch, done: (error: unknown, tokens?: StepTokens) => void): void;
}

/** How one sequence ended: all its tokens, or why not. Exactly one per submitted request. */
export type GenOutcome =
  | { ok: true; tokens: number[]; finishReason: 'length' | 'stop' }
  | { ok: false; reason: 'rejected' | 'cancelled' | 'failed'; message: string; tokens: number[] };

/** Where a submitted request's tokens and its one outcome go. */
export interface GenSink {
  onToken?(token: number, index: number): void;
  onEnd(outcome: GenOutcome): void;
}

export interface StepRowView {
  id: string;
  kind: 'prefill' | 'decode';
  tokens: number;
}

/** The per-step and per-sequence events a run emits (the timeline, the block map and the figures fold them). */
export type IterEvent =
  | IterIdleEvent
  | { type: 'seq_queued'; t: number; id: string; promptTokens: number; maxTokens: number }
  | { type: 'seq_rejected'; t: number; id: string; message: string }
  | { type: 'step_started'; t: number; step: number; rows: StepRowView[]; joined: string[]; padSlots: number; tokens: number; kv: KvUsage }
  /** its cache was dropped; `recompute` tokens (prompt + `generated`) are fed again when it rejoins */
  | { type: 'seq_preempted'; t: number; step: number; id: string; generated: number; recompute: number }
  | { type: 'token'; t: number; step: number; id: string; index: number; token: number }
  /** `blocks`: the block map after the step, only when the loop was asked for it (StepLoopOptions.blockMaps) */
  | { type: 'step_finished'; t: number; step: number; durationUs: number; kv: KvUsage; blocks?: KvBlockMap }
  | { type: 'seq_finished'; t: number; id: string; outcome: 'done' | 'cancelled' | 'failed'; tokens: number };
/** nothing waits or runs: every block of a finished or cancelled sequence is free now (a cancelled one's are freed at this boundary) */
export type IterIdleEvent = { type: 'idle'; t: number; kv: KvUsage; blocks?: KvBlockMap };
