/**
 * One bad request must not fail its batch, nor show the others its data.
 *
 * A backend runs a batch as one call: when one request of it is bad (a token id past the vocabulary of an
 * embedding, a value a custom op refuses), the whole call fails, and the error text (onnxruntime's, a
 * Python traceback) may quote that request's values. Without isolation every request of the batch got
 * a 500 carrying that text. This decorator wraps any Executor: when a batch of two or more fails, it runs
 * the two halves again (and the halves of a failing half, down to single requests), so the valid requests
 * are answered, batched as far as possible, and only a request that fails ALONE gets an error, which is
 * then its own (core's RequestFailure fails that request only). The batch's original error message is
 * never given to anyone.
 *
 * Why halves and not one by one: one bad request among n costs about 2*log2(n) extra runs instead of n,
 * and the good ones keep most of their batching. An instance-level failure (the worker is gone) fails
 * every leaf quickly with a message about the instance, not about anyone's data.
 *
 * The success path is untouched: executeWithCallback is passed straight through (the ORT executor posts
 * the batch synchronously inside the scheduler's dispatch, see executor.ts).
 *
 * What is never split:
 * - a batch answered with results, some of them RequestFailure: the executor already told the requests
 *   apart (a python model's per-request error), so each result goes to its request as it is, no re-run;
 * - a WholeBatchFailure: the executor says that running parts of the batch again would be wrong, not
 *   just wasteful. A Triton python model is the case: execute() is the user's code and may act on each
 *   request (count it, log it, call out, keep state across calls), so running it again on a request it
 *   has already seen is a second execution, not a lookup; Triton runs a batch once and, when execute()
 *   raises, fails every request of it with the exception's message, which is what happens here. The model
 *   author wrote that message (Triton shows it the same way), and a model that wants to fail one request
 *   alone says so with an error response, which arrives here as a RequestFailure (first case).
 *   A TorchScript forward() or an onnxruntime run is a pure function of the batch: splitting it costs
 *   only time, so those failures are still split.
 */
import { codeOf, runBatch, RequestFailure, type BatchDone, type Executor, type InstanceInfo, type SchedulerRequest } from '@inferscope/core';

/**
 * A batch's failure that goes to every request of the batch as it is: the batch must not be re-run in
 * parts (see above). It is each request's own failure too, hence a RequestFailure.
 */
export class WholeBatchFailure extends RequestFailure {
  readonly wholeBatch = true;
}

export interface IsolationStats {
  /** batches that failed as a whole and were split */
  isolatedBatches: number;
  /** extra executor runs those splits cost */
  reruns: number;
}

export function isolateFailures<P, R>(inner: Executor<P, R>, stats: IsolationStats = { isolatedBatches: 0, reruns: 0 }): Executor<P, R> & { isolation: IsolationStats } {
  /** Runs `batch` and resolves with one result or RequestFailure per request; never fails as a whole. */
  const isolate = (instance: InstanceInfo, batch: readonly SchedulerRequest<P>[], done: (results: (R | RequestFailure)[]) => void): void => {
    stats.reruns++;
    runBatch(inner, instance, batch, (err, results) => {
      if (!err && Array.isArray(results) && results.length === batch.length) return done(results);
      if (batch.length === 1) return done([leafFailure(err, results)]);
      if (err instanceof WholeBatchFailure) return done(batch.map(() => leafFailure(err, results)));
      split(instance, batch, done);
    });
  };

  const split = (instance: InstanceInfo, batch: readonly SchedulerRequest<P>[], done: (results: (R | RequestFailure)[]) => void): void => {
    const mid = batch.length >> 1;
    const halves: (R | RequestFailure)[][] = [];
    let pending = 2;
    const finish = (i: number) => (r: (R | RequestFailure)[]) => {
      halves[i] = r;
      if (--pending === 0) done([...halves[0], ...halves[1]]);
    };
    // Both halves are handed over at once: an executor with prefetch queues them back to back.
    isolate(instance, batch.slice(0, mid), finish(0));
    isolate(instance, batch.slice(mid), finish(1));
  };

  const executeWithCallback = (instance: InstanceInfo, batch: readonly SchedulerRequest<P>[], done: BatchDone<R>): void => {
    runBatch(inner, instance, batch, (err, results, phases) => {
      if (!err || batch.length < 2 || err instanceof WholeBatchFailure) return done(err, results, phases);
      stats.isolatedBatches++;
      // The scheduler's contract allows a RequestFailure in place of a result (core scheduler/types.ts).
      split(instance, batch, (r) => done(null, r as R[]));
    });
  };

  return {
    get prefetch() {
      return inner.prefetch;
    },
    startInstance: inner.startInstance?.bind(inner),
    stopInstance: inner.stopInstance?.bind(inner),
    // the scheduler's original array goes to the inner executor unchanged, so it can recognise it; the
    // halves of an isolation are never reclaimed (the scheduler does not know them)
    ...(inner.reclaim ? { reclaim: inner.reclaim.bind(inner) } : {}),
    // a hosted program runs no batch: nothing to isolate
    ...(inner.hostProgram ? { hostProgram: inner.hostProgram.bind(inner) } : {}),
    executeWithCallback,
    execute: (instance, batch) => new Promise<R[]>((resolve, reject) => executeWithCallback(instance, batch, (e, r) => (e ? reject(e) : resolve(r!)))),
    isolation: stats,
  };
}

function leafFailure(err: unknown, results: unknown): RequestFailure {
  if (err instanceof RequestFailure) return err;
  const message = err ? (err instanceof Error ? err.message : String(err)) : `executor returned ${Array.isArray(results) ? results.length : 'no'} results for 1 request`;
  return new RequestFailure(message, codeOf(err));
}
