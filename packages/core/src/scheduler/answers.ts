/**
 * Every answer a scheduler gives goes out through here: a batch's results or its failure (with the
 * request.completed event), a queued request refused later (timeout, unload, a lowered max_batch_size)
 * and a request refused at the door. Each is counted in the scheduler's stats, and a caller's callback
 * that throws is the caller's problem, never the scheduler's.
 */
import type { Clock } from '../clock/clock';
import { asInferError, type InferError } from '../errors/infer-error';
import type { RejectReason } from '../events';
import type { Emitter } from './emitter';
import type { QueueEntry, Settle } from './queue-entry';
import type { SchedulerStats } from './snapshot';
import { SchedulerError, type ComputePhases, type SchedulerRequest } from './types';

/** One request's outcome from its batch, waiting (under preserve_ordering) until it may leave. */
export interface Answer<P, R> {
  entry: QueueEntry<P, R>;
  error: Error | null;
  result?: R;
  batchId: string;
  startedUs: number;
  computeUs: number;
  /** the executor's measured input/output phases of the batch, when it measures them */
  phases?: ComputePhases;
}

export class Answers<P, R> {
  /**
   * Clock time of the batch completion whose answers are being released (-1 outside one): every answer
   * released then leaves at that time, one clock read per batch instead of one per request.
   */
  releaseTimeUs = -1;

  constructor(
    private readonly stats: SchedulerStats,
    private readonly emit: Emitter,
    private readonly clock: Clock,
  ) {}

  deliver(a: Answer<P, R>): void {
    const e = a.entry;
    if (a.error) this.stats.failed++;
    else this.stats.completed++;
    // only read the clock when someone listens: total_us exists for the events alone
    if (this.emit.active) {
      const t = this.releaseTimeUs >= 0 ? this.releaseTimeUs : this.clock.now();
      this.emit.completed(e, a.batchId, a.startedUs - e.enqueuedUs, a.computeUs, t - e.enqueuedUs, t, a.error ? asInferError(a.error) : undefined, a.phases);
    }
    callSafely(e.settle, a.error, a.result);
  }

  /** a request that was queued, refused now (the caller takes it out of the queue and the ordering) */
  rejectQueued(e: QueueEntry<P, R>, reason: RejectReason, error: InferError): void {
    this.stats.rejected[reason] = (this.stats.rejected[reason] ?? 0) + 1;
    this.emit.rejected(e.id, reason, error.message, e.level, e.enqueuedUs);
    callSafely(e.settle, SchedulerError.of(reason, error));
  }

  /** a request refused before it was queued; returns its id */
  refuse(id: string, req: SchedulerRequest<P>, settle: Settle<R>, reason: RejectReason, error: InferError, level?: number): string {
    this.stats.rejected[reason] = (this.stats.rejected[reason] ?? 0) + 1;
    this.emit.rejected(id, reason, error.message, level ?? req.priority);
    callSafely(settle, SchedulerError.of(reason, error));
    return id;
  }
}

function callSafely<R>(settle: Settle<R>, error: Error | null, result?: R): void {
  try {
    settle(error, result);
  } catch {
    // the caller's callback threw: its problem, never the scheduler's
  }
}
