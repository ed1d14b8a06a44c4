/**
 * One request into a scheduler, cancelled when its client goes away: while it is still queued the
 * scheduler takes it out (answered 'cancelled', no batch slot taken); once it is in a batch handed to an
 * instance it completes, and the caller drops the answer. The promise settles exactly once either way.
 */
import type { InferPayload, InferResult, SchedulerRequest } from '@inferscope/core';
import type { SchedulerLike } from './runtime';

export function enqueueCancellable(
  scheduler: Pick<SchedulerLike, 'submit' | 'cancel'>, req: SchedulerRequest<InferPayload>, signal: AbortSignal,
): Promise<InferResult> {
  return new Promise<InferResult>((resolve, reject) => {
    let id: string | undefined;
    let answered = false;
    const onAbort = () => {
      if (id !== undefined && !answered) scheduler.cancel(id);
    };
    id = scheduler.submit(req, (err, result) => {
      answered = true;
      signal.removeEventListener('abort', onAbort);
      if (err) reject(err);
      else resolve(result!);
    });
    if (answered) return;
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
}
