/**
 * How a scheduler hands a batch to an executor, for every scheduler and decorator that does: through
 * `executeWithCallback` where the executor has it (no promise per batch; the simulator's batches complete
 * inside a virtual-clock timer), else `execute`. A throw is the batch's failure, and `done` is called
 * once whatever the executor does (a second callback is ignored).
 */
import type { ComputePhases, Executor, InstanceInfo, SchedulerRequest } from './types';

export type BatchDone<R> = (error: unknown, results?: R[], phases?: ComputePhases) => void;

export function runBatch<P, R>(executor: Executor<P, R>, instance: InstanceInfo, batch: readonly SchedulerRequest<P>[], done: BatchDone<R>): void {
  const once = onlyOnce(done);
  try {
    if (executor.executeWithCallback) executor.executeWithCallback(instance, batch, once);
    else executor.execute(instance, batch).then((r) => once(null, r), (err: unknown) => once(err ?? new Error('executor failed')));
  } catch (err) {
    once(err ?? new Error('executor failed'));
  }
}

// made by a function and returned, not bound to a name where it is used: see ARCHITECTURE.md (hot paths)
function onlyOnce<R>(done: BatchDone<R>): BatchDone<R> {
  let called = false;
  return (error, results, phases) => {
    if (called) return;
    called = true;
    done(error, results, phases);
  };
}
