/**
 * One request into a scheduler, cancelled when its client goes away: while it is still queued the
 * scheduler takes it out (answered 'cancelled', no batch slot taken); once it is in a batch handed to an
 * instance it completes, and the caller drops the answer. The promise settles exactly once either way.
 */
import type { InferError, InferPayload, InferResult, SchedulerRequest } from '@inferscope/core';
import { SchedulerError } from '@inferscope/core';
import type { Scheduler } from '@inferscope/core/scheduler';
import type { CancelSignal } from './cancel-signal';

export type { CancelSignal } from './cancel-signal';


/** A request's payload as an executor sees it while the request runs. */
export interface CancellablePayload {
  /**
   * Fires when the request is cancelled (its client went away, its BLS caller was cancelled, its BLS
   * timeout passed): set by ModelManager.infer, read by an executor whose model may stop early (a python
   * model's request.is_cancelled()).
   */
  cancelled?: CancelSignal;
}

/**
 * "The client went away", made once per request on the hot path. An AbortController with its EventTarget
 * signal cost ~4 µs per request there (creating the signal, adding and removing a listener: ~5% of the
 * main thread at 14k req/s, measured with --cpu-prof); this is a plain object with a listener slot.
 */
export class ClientGone implements CancelSignal {
  aborted = false;
  /** the common case, one request per signal, needs no array; a gRPC stream's requests share one */
  private first: (() => void) | undefined;
  private more: (() => void)[] | undefined;

  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    const first = this.first;
    const more = this.more;
    this.first = undefined;
    this.more = undefined;
    first?.();
    if (more) for (const fn of more) fn();
  }

  onAbort(fn: () => void): () => void {
    if (this.aborted) return noop;
    if (this.first === undefined) {
      this.first = fn;
      return () => {
        if (this.first === fn) this.first = undefined;
      };
    }
    (this.more ??= []).push(fn);
    return () => {
      const i = this.more?.indexOf(fn) ?? -1;
      if (i >= 0) this.more!.splice(i, 1);
    };
  }
}

const noop = () => {};

/**
 * Watches a queued request (call-chain.ts: the target's instances changing under a BLS call): it may take
 * the request out, still queued, answering it with `error`. Returns what stops the watching.
 */
export type QueueWatch = (takeOut: (error: InferError) => void) => () => void;

export function enqueueCancellable(
  scheduler: Pick<Scheduler, 'submit' | 'cancel'>, req: SchedulerRequest<InferPayload>, signal: CancelSignal | undefined, watch?: QueueWatch,
): Promise<InferResult> {
  return new Promise<InferResult>((resolve, reject) => {
    let answered = false;
    let stop = noop;
    let unwatch = noop;
    /** the error the watch took the request out with (the scheduler answers it 'cancelled') */
    let takenOut: InferError | undefined;
    const id = scheduler.submit(req, (err, result) => {
      answered = true;
      stop();
      unwatch();
      if (err) reject(takenOut ? SchedulerError.of('unavailable', takenOut) : err);
      else resolve(result!);
    });
    if (answered) return;
    if (watch) {
      unwatch = watch((error) => {
        if (answered) return;
        takenOut = error;
        if (!scheduler.cancel(id)) takenOut = undefined; // it runs already: it is answered as it ends
      });
    }
    if (!signal) return;
    if (signal.aborted) scheduler.cancel(id);
    else stop = signal.onAbort(() => {
      if (!answered) scheduler.cancel(id);
    });
  });
}
