/**
 * Running committed batches: handing one to an instance through the executor (at once when the instance is
 * idle, behind its running batch when it is busy: prefetch), starting the held one when the running one
 * ends, moving a held batch to an instance that became free first, and answering every request of a
 * finished batch exactly once. Split from ModelScheduler, which owns the queues and decides what to send.
 */
import { codeOf } from '../errors/infer-error';
import type { Clock } from '../clock/clock';
import type { Answer, Answers } from './answers';
import type { BatchDecision } from './decide';
import type { Emitter } from './emitter';
import type { InstanceBatch, InstancePool, PoolInstance } from './instance-pool';
import type { InstanceLifecycle } from './instance-lifecycle';
import type { OrderedRelease } from './ordering';
import type { QueueEntry } from './queue-entry';
import type { SchedulerStats } from './snapshot';
import { RequestFailure, SchedulerError, type ComputePhases, type Executor, type SchedulerRequest } from './types';

export interface RunnerHooks {
  /** form the next batches (false: leave busy instances' prefetch room for a same-time timer) */
  pump(prefetchNow: boolean): void;
  /** the model has stopped: an instance that ends its batch stops too */
  stopped(): boolean;
  /** a batch was answered: an unload waiting for the last one may finish */
  answered(): void;
}

export class BatchRunner<P, R> {
  private batchSeq = 0;
  /** level -> requests in batches held behind a running one, not begun (they still count as queued) */
  private readonly held = new Map<number, number>();

  constructor(
    private readonly clock: Clock,
    private readonly executor: Executor<P, R>,
    private readonly pool: InstancePool,
    private readonly instances: InstanceLifecycle,
    private readonly emit: Emitter,
    private readonly stats: SchedulerStats,
    private readonly answers: Answers<P, R>,
    private readonly ordering: OrderedRelease<Answer<P, R>>,
    private readonly idPrefix: string,
    private readonly hooks: RunnerHooks,
  ) {}

  /** requests of `level` handed to a busy instance and not begun: max_queue_size counts them as waiting */
  heldAt(level: number): number {
    return this.held.get(level) ?? 0;
  }

  /** commit `entries` as one batch on `inst` (idle: it begins now; busy: it begins when the running one ends) */
  dispatch(inst: PoolInstance, entries: QueueEntry<P, R>[], d: Extract<BatchDecision, { kind: 'send' }>): void {
    const seq = ++this.batchSeq;
    const run: InstanceBatch = {
      batchId: `${this.idPrefix}b${seq}`, seq, size: d.size, startedUs: 0, started: false, entries, requests: entries.map((e) => e.req),
    };
    this.stats.batches++;
    this.stats.samples += d.size;
    const held = inst.state !== 'idle';
    this.emit.batchFormed(run.batchId, entries, d.size, d.trigger, this.clock.now() - d.oldestUs, held ? inst.info.name : undefined);
    this.handTo(inst, run);
  }

  /**
   * While an instance is free and another holds a batch it has not begun, take that batch back (executors
   * with `reclaim`) and begin it on the free one, oldest first: Triton's queued payload goes to whichever
   * instance frees up first, so the oldest requests never wait behind a slow instance while another idles.
   */
  moveHeldBatchesToIdle(): void {
    if (!this.executor.reclaim) return;
    while (this.pool.idleCount > 0) {
      const held = this.pool.oldestHeld();
      if (!held) return;
      const idle = this.pool.takeIdle();
      if (!idle) return;
      if (!this.executor.reclaim(held.inst.info, held.run.requests as readonly SchedulerRequest<P>[])) {
        this.pool.markIdle(idle); // it begins where it is (or already has): leave it
        return;
      }
      held.inst.prefetched.splice(held.inst.prefetched.indexOf(held.run), 1);
      this.handTo(idle, held.run);
    }
  }

  private handTo(inst: PoolInstance, run: InstanceBatch): void {
    if (inst.state === 'idle') {
      inst.state = 'busy';
      this.begin(inst, run);
    } else {
      inst.prefetched.push(run); // it begins when the running batch ends (see complete)
      run.counted = true;
      this.countHeld(run, 1);
    }
    let finished = false;
    const handOff = (run.handOffs = (run.handOffs ?? 0) + 1);
    const done = (error: unknown, results?: R[], phases?: ComputePhases): void => {
      // an executor calling back twice, or for a hand-off it gave back (reclaim), must not answer twice
      if (finished || run.handOffs !== handOff) return;
      finished = true;
      this.complete(inst, run, error, results, phases);
    };
    const reqs = run.requests as readonly SchedulerRequest<P>[];
    try {
      if (this.executor.executeWithCallback) this.executor.executeWithCallback(inst.info, reqs, done);
      else this.executor.execute(inst.info, reqs).then((r) => done(null, r), (err) => done(err ?? new Error('executor failed')));
    } catch (err) {
      done(err ?? new Error('executor failed'));
    }
  }

  /** `run` is now the instance's running batch: its compute time and its requests' queue time split here. */
  private begin(inst: PoolInstance, run: InstanceBatch, nowUs = this.clock.now()): void {
    if (run.counted) this.countHeld(run, -1);
    run.started = true;
    run.startedUs = nowUs;
    inst.batchId = run.batchId;
    this.emit.batchStarted(run.batchId, inst.info.name, run.size, nowUs);
  }

  private complete(inst: PoolInstance, run: InstanceBatch, error: unknown, results?: R[], measured?: ComputePhases): void {
    const entries = run.entries as QueueEntry<P, R>[];
    if (!run.started) {
      // Ended before the batch ahead of it (an executor failing a held batch at once): it never ran.
      const i = inst.prefetched.indexOf(run);
      if (i >= 0) inst.prefetched.splice(i, 1);
      if (run.counted) this.countHeld(run, -1);
      run.started = true;
      run.startedUs = this.clock.now();
      this.emit.batchStarted(run.batchId, inst.info.name, run.size, run.startedUs);
    }
    const { batchId, size, startedUs } = run;
    const nowUs = this.clock.now();
    const computeUs = nowUs - startedUs;
    let failure: Error | null = null;
    if (error) failure = new SchedulerError('failed', error instanceof Error ? error.message : String(error), codeOf(error));
    else if (!Array.isArray(results) || results.length !== entries.length) {
      failure = new SchedulerError('failed', `executor returned ${Array.isArray(results) ? results.length : 'no'} results for ${entries.length} requests`, 'INTERNAL');
    }
    const phases = measured && !failure ? withinSpan(measured, computeUs) : undefined;
    this.emit.batchCompleted(batchId, inst.info.name, size, computeUs, nowUs, failure?.message, phases);
    if (failure) this.stats.failedBatches++;
    if (inst.batchId === batchId) {
      inst.batchId = undefined;
      const next = inst.prefetched.shift();
      if (next) this.begin(inst, next, nowUs); // the instance went straight on to the batch it already holds
      else if (inst.retiring || this.hooks.stopped()) void this.instances.stop(inst);
      else {
        this.pool.markIdle(inst);
        this.moveHeldBatchesToIdle();
      }
    }
    // Hand the instance its next batch before answering this one: the answers (their events, the callers'
    // follow-up work) then run while the instance computes instead of in the gap between two batches,
    // where a worker-thread instance would sit idle. Answers still go out in this same call.
    this.hooks.pump(false);
    // Every answer released from here (this batch's, and earlier ones preserve_ordering held back) leaves
    // now: one clock read for the batch, not one per request.
    this.answers.releaseTimeUs = nowUs;
    for (let i = 0; i < entries.length; i++) {
      const e = entries[i];
      const own = failure ? undefined : results![i];
      // a RequestFailure in place of a result fails that request alone (an executor that isolated it)
      const error = failure ?? (own instanceof RequestFailure ? new SchedulerError('failed', own.message, own.code) : null);
      this.ordering.settle(e.seq, { entry: e, error, result: error ? undefined : own, batchId, startedUs, computeUs, phases });
    }
    this.answers.releaseTimeUs = -1;
    this.hooks.answered();
  }

  private countHeld(run: InstanceBatch, delta: 1 | -1): void {
    if (delta < 0) run.counted = false;
    for (const e of run.entries) {
      const n = (this.held.get(e.level) ?? 0) + delta;
      if (n === 0) this.held.delete(e.level);
      else this.held.set(e.level, n);
    }
  }
}

/**
 * An executor's phases clipped to the span the scheduler measured: they are timed on other clocks (a
 * worker thread's, the main thread's around the hand-off), so rounding or a prefetched batch whose input
 * was prepared before its span began could make them exceed it; compute_infer must never come out negative.
 */
function withinSpan(p: ComputePhases, computeUs: number): ComputePhases {
  const inputUs = Math.max(0, Math.min(Math.round(p.inputUs), computeUs));
  const outputUs = Math.max(0, Math.min(Math.round(p.outputUs), computeUs - inputUs));
  return { inputUs, outputUs };
}
