import type { SchedulerRequest } from './types';

/** What the batch decision needs to know about a waiting request. */
export interface BatchCandidate {
  /** samples carried (>= 1) */
  readonly batchSize: number;
  readonly shapeKey: string;
  readonly enqueuedUs: number;
}

/** Something that can walk waiting requests in service order (level 1 first; per level fresh, then delayed). */
export interface CandidateSource<C extends BatchCandidate = BatchCandidate> {
  /** visit in service order until `visit` returns false */
  forEachInOrder(visit: (c: C) => boolean): void;
}

export type Settle<R> = (error: Error | null, result?: R) => void;

/** One accepted request while the scheduler owns it. Mutable on purpose: one object per request, no copies. */
export interface QueueEntry<P = unknown, R = unknown> extends BatchCandidate {
  readonly req: SchedulerRequest<P>;
  readonly id: string;
  /** acceptance order, used by preserve_ordering */
  readonly seq: number;
  level: number;
  batchSize: number;
  /** absolute timeout (µs), 0 = none; cleared when the request is delayed (Triton: no second timeout) */
  deadlineUs: number;
  /** false once it left the queue (batched, rejected, drained) */
  queued: boolean;
  delayed: boolean;
  settle: Settle<R>;
}

export function arraySource<C extends BatchCandidate>(items: readonly C[]): CandidateSource<C> {
  return {
    forEachInOrder(visit) {
      for (const c of items) if (!visit(c)) return;
    },
  };
}

/** any entry, whatever its payload/result types (settle is contravariant, so `unknown` would not do) */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyEntry = QueueEntry<any, any>;
