/**
 * Running formed batches: a batch is formed for a free instance and begins there at once. While every
 * instance is busy the batcher queues payloads instead (payloads.ts: Triton's queued payload keeps growing
 * and may be merged when an instance takes it), and the oldest may be lent: its requests stay queued and
 * the same array is handed to the busy instance likeliest to free up first (executors with `prefetch` and
 * `reclaim`), so it can begin there without a round trip. The lent batch is what that instance would be
 * given when it frees up, as long as the payload stays the same and no later payload could be merged into
 * it; when that changes (growth, a new payload, a cancellation) or another instance frees up, the scheduler
 * takes it back (reclaim) and decides again. A lent batch that cannot be taken back has begun: it is formed
 * then. Every request of a finished batch is answered exactly once. Split from ModelScheduler, which owns
 * the queues and decides what to form.
 */
import { runBatch } from './run-batch';
import { codeOf } from '../errors/infer-error';
import type { Clock } from '../clock/clock';
import type { Answer, Answers } from './answers';
import type { BatchDecision } from './decide';
import type { Emitter } from './emitter';
import type { InstanceBatch, InstancePool, PoolInstance } from './instance-pool';
import type { InstanceLifecycle } from './instance-lifecycle';
import type { ResourceGate } from './resource-gate';
import type { OrderedRelease } from './ordering';
import type { AnyEntry, QueueEntry } from './queue-entry';
import type { SchedulerStats } from './snapshot';
import { RequestFailure, SchedulerError, type ComputePhases, type Executor, type SchedulerRequest } from './types';

/** what a batch is formed from: its samples, why it was sent, when its oldest request was queued */
export type Formation = Pick<Extract<BatchDecision, { kind: 'send' }>, 'size' | 'trigger' | 'oldestUs'>;

export interface RunnerHooks {
  /** form the next batches (false: leave formation for busy instances to a same-time timer) */
  pump(prefetchNow: boolean): void;
  /** take a lent batch's entries out of the queue: it is being formed (they are the queue's first) */
  takeQueued(entries: readonly AnyEntry[]): void;
  /** the model has stopped: an instance that ends its batch stops too */
  stopped(): boolean;
  /** a batch was answered: an unload waiting for the last one may finish */
  answered(): void;
}

export class BatchRunner<P, R> {
  private batchSeq = 0;
  /**
   * Batches a busy instance may be handed behind its running one: the executor's prefetch, and only when
   * it can give one back (reclaim); a batch handed early that could not be taken back would fix which
   * instance runs it, and so the order.
   */
  private readonly depth: number;
  /** the oldest queued payload lent to a busy instance (see the file comment) */
  private lentRun: InstanceBatch | undefined;

  constructor(
    private readonly clock: Clock,
    private readonly executor: Executor<P, R>,
    private readonly pool: InstancePool,
    private readonly instances: InstanceLifecycle,
    private readonly gate: ResourceGate,
    private readonly emit: Emitter,
    private readonly stats: SchedulerStats,
    private readonly answers: Answers<P, R>,
    private readonly ordering: OrderedRelease<Answer<P, R>>,
    private readonly idPrefix: string,
    private readonly hooks: RunnerHooks,
  ) {
    // a batch handed early would begin without asking the rate limiter: no early hand-off while it limits
    this.depth = executor.reclaim && !gate.limiting ? Math.max(0, Math.floor(executor.prefetch ?? 0)) : 0;
  }

  /** the batch lent to a busy instance, if any: its entries are the queue's first */
  get lent(): InstanceBatch | undefined {
    return this.lentRun;
  }

  /**
   * Lends the queue's first `entries` (the oldest queued payload) to the busy instance likeliest to free up
   * first; false when there is none to lend to.
   */
  lend(entries: QueueEntry<P, R>[], d: Formation): boolean {
    if (this.lentRun || this.depth === 0 || entries.length === 0) return false;
    const holder = this.pool.holderFor(this.depth);
    if (!holder) return false;
    const run: InstanceBatch = {
      batchId: '', seq: 0, size: d.size, startedUs: 0, started: false, entries, requests: entries.map((e) => e.req),
      lent: { trigger: d.trigger, oldestUs: d.oldestUs },
    };
    this.lentRun = run;
    this.handEarly(holder, run);
    return true;
  }

  /** Ends the loan: taken back (its entries simply stay queued), or, when its holder has begun it, formed there. */
  settleLent(): void {
    const run = this.lentRun;
    if (!run) return;
    const holder = run.holder!;
    if (this.executor.reclaim!(holder.info, run.requests as readonly SchedulerRequest<P>[])) {
      holder.prefetched.splice(holder.prefetched.indexOf(run), 1);
      run.holder = undefined;
      run.handOffs = (run.handOffs ?? 0) + 1; // given back: a late answer from that hand-off must be ignored
      this.lentRun = undefined;
      return;
    }
    this.formLent(run); // its holder begins it: it is no longer anyone else's to take
  }

  /** a batch is formed: its id, its place in formation order, the batch statistics */
  private numberFormed(run: InstanceBatch): void {
    run.seq = ++this.batchSeq;
    run.batchId = `${this.idPrefix}b${run.seq}`;
    this.stats.batches++;
    this.stats.samples += run.size;
  }

  /** a lent batch becomes a formed one, held early by its holder */
  private formLent(run: InstanceBatch): void {
    const lent = run.lent!;
    const entries = run.entries as QueueEntry<P, R>[];
    this.hooks.takeQueued(entries);
    run.lent = undefined;
    this.lentRun = undefined;
    this.numberFormed(run);
    this.emit.batchFormed(run.batchId, entries, run.size, lent.trigger, this.clock.now() - lent.oldestUs, run.holder?.info.name);
  }

  /** commit `entries` as one batch, begun on the free instance `idle` now */
  form(idle: PoolInstance, entries: QueueEntry<P, R>[], d: Formation): void {
    const run: InstanceBatch = { batchId: '', seq: 0, size: d.size, startedUs: 0, started: false, entries, requests: entries.map((e) => e.req) };
    this.numberFormed(run);
    this.emit.batchFormed(run.batchId, entries, d.size, d.trigger, this.clock.now() - d.oldestUs);
    idle.state = 'busy';
    // formed now; it begins once the instance holds its rate-limiter resources (at once without a limiter)
    this.gate.run(idle, () => {
      this.begin(idle, run);
      this.post(idle, run);
    });
  }

  /** hand `run` to the busy `holder`: it begins there when the running batch ends, unless taken back first */
  private handEarly(holder: PoolInstance, run: InstanceBatch): void {
    holder.prefetched.push(run);
    run.holder = holder;
    this.post(holder, run);
  }

  /** give `run` to the executor on `inst` (a batch taken back is given again: only the latest may answer) */
  private post(inst: PoolInstance, run: InstanceBatch): void {
    const handOff = (run.handOffs = (run.handOffs ?? 0) + 1);
    runBatch(this.executor, inst.info, run.requests as readonly SchedulerRequest<P>[], (error, results, phases) => {
      // the answer to a hand-off it gave back (reclaim) must not answer the batch
      if (run.handOffs === handOff) this.complete(inst, run, error, results, phases);
    });
  }

  /** `run` is now the instance's running batch: its compute time and its requests' queue time split here. */
  private begin(inst: PoolInstance, run: InstanceBatch, nowUs = this.clock.now()): void {
    if (run.lent) this.formLent(run); // the instance went on to the batch lent to it
    const prefetched = run.holder === inst;
    run.holder = undefined;
    run.started = true;
    run.startedUs = nowUs;
    inst.batchId = run.batchId;
    inst.sinceUs = nowUs;
    this.emit.batchStarted(run.batchId, inst.info.name, run.size, nowUs, prefetched);
  }

  private complete(inst: PoolInstance, run: InstanceBatch, error: unknown, results?: R[], measured?: ComputePhases): void {
    const entries = run.entries as QueueEntry<P, R>[];
    if (!run.started) {
      // Ended before the batch ahead of it (an executor failing a held batch at once): it never ran.
      if (run.lent) this.formLent(run);
      const i = inst.prefetched.indexOf(run);
      if (i >= 0) inst.prefetched.splice(i, 1);
      run.holder = undefined;
      run.started = true;
      run.startedUs = this.clock.now();
      this.emit.batchStarted(run.batchId, inst.info.name, run.size, run.startedUs);
    }
    const { batchId, size, startedUs } = run;
    const nowUs = this.clock.now();
    const computeUs = nowUs - startedUs;
    const failure = batchFailure(error, results, entries.length);
    const phases = measured && !failure ? withinSpan(measured, computeUs) : undefined;
    this.emit.batchCompleted(batchId, inst.info.name, size, computeUs, nowUs, failure?.message, phases);
    if (failure) this.stats.failedBatches++;
    // the instance's resources go back while the model's next batch is formed (resource-gate.ts)
    this.gate.ended(inst, () => {
      if (inst.batchId === batchId) {
        inst.batchId = undefined;
        const next = inst.prefetched.shift();
        if (next) this.begin(inst, next, nowUs); // the instance went straight on to the batch it already holds
        else if (inst.retiring || this.hooks.stopped()) void this.instances.stop(inst);
        else this.pool.markIdle(inst);
      }
      // Hand the instance its next batch before answering this one: the answers (their events, the callers'
      // follow-up work) then run while the instance computes instead of in the gap between two batches,
      // where a worker-thread instance would sit idle. Answers still go out in this same call.
      this.hooks.pump(false);
    });
    // Every answer released from here (this batch's, and earlier ones preserve_ordering held back) leaves
    // now: one clock read for the batch, not one per request.
    this.answers.releaseTimeUs = nowUs;
    for (let i = 0; i < entries.length; i++) {
      const e = entries[i];
      const own = failure ? undefined : results![i];
      const error = failure ?? requestFailure(own);
      this.ordering.settle(e.seq, { entry: e, error, result: error ? undefined : own, batchId, startedUs, computeUs, phases });
    }
    this.answers.releaseTimeUs = -1;
    this.hooks.answered();
  }
}

/** The failure of a whole batch: the executor's error, or results that do not match its requests. */
export function batchFailure(error: unknown, results: unknown[] | undefined, count: number): SchedulerError | null {
  if (error) return new SchedulerError('failed', error instanceof Error ? error.message : String(error), codeOf(error));
  if (!Array.isArray(results) || results.length !== count) {
    return new SchedulerError('failed', `executor returned ${Array.isArray(results) ? results.length : 'no'} results for ${count} requests`, 'INTERNAL');
  }
  return null;
}

/** a RequestFailure in place of a result fails that request alone (an executor that isolated it) */
export function requestFailure(own: unknown): SchedulerError | null {
  return own instanceof RequestFailure ? new SchedulerError('failed', own.message, own.code) : null;
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
