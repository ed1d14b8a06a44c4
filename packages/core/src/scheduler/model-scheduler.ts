/**
 * One model version's scheduler: priority queues + queue policy, the batch decision, the instance pool and
 * the executor, all on one injected Clock. The loop (`pump`) runs only when something can change the
 * outcome (an arrival while an instance can take work, an instance freeing up, a timer), and commits a
 * decision only when an instance can take the batch: it is idle, or (executors that declare `prefetch`,
 * where the policy allows it as Triton does) it is busy with room for a batch behind the running one and
 * the batch could not grow anyway. Otherwise the pending batch simply keeps growing. Committed batches are
 * run and answered by BatchRunner.
 *
 * Guarantee: every accepted request is answered exactly once (result, or SchedulerError), through config
 * changes, instance count changes, executor failures and unload.
 */
import type { Clock, TimerHandle } from '../clock/clock';
import type { AutotuneChangeReason, EventBus, RejectReason } from '../events';
import type { DynamicBatchingPatch } from '../live/protocol';
import type { SchedulerConfigInput } from './config-input';
import { decideBatch, mayHandOverEarly, type BatchDecision } from './decide';
import { Answers, type Answer } from './answers';
import { Emitter } from './emitter';
import { groupsFromConfig, instancesInGroup, InstancePool, type GroupSpec } from './instance-pool';
import { InstanceLifecycle } from './instance-lifecycle';
import { BatchRunner } from './batch-runner';
import { OrderedRelease } from './ordering';
import { levelFor, policyFromConfig, queueFor, timeoutFor, type BatchingPolicy } from './policy';
import { PriorityQueues, relevelled } from './priority-queues';
import type { QueueEntry, Settle } from './queue-entry';
import { applyBatchingPatch, type PatchResult } from './reconfigure';
import { emptyStats, snapshotOf, type SchedulerSnapshot, type SchedulerStats } from './snapshot';
import { SchedulerError, type Executor, type SchedulerRequest } from './types';

export type SchedulerState = 'created' | 'starting' | 'ready' | 'stopping' | 'stopped' | 'failed';

export interface ModelSchedulerOptions<P, R> {
  model: string;
  version: string;
  config: SchedulerConfigInput;
  clock: Clock;
  bus: EventBus;
  executor: Executor<P, R>;
  /**
   * Prefix of the request and batch ids this scheduler makes up (default `model:version:`). A server that
   * reloads a model passes a different one per load, so an id never names two requests over its lifetime.
   */
  idPrefix?: string;
}

type Entry<P, R> = QueueEntry<P, R>;

export class ModelScheduler<P = unknown, R = unknown> {
  readonly model: string;
  readonly version: string;
  readonly stats: SchedulerStats = emptyStats();
  private readonly clock: Clock;
  private readonly executor: Executor<P, R>;
  private readonly emit: Emitter;
  private config: SchedulerConfigInput;
  private policy: BatchingPolicy;
  private groups: GroupSpec[];
  private queues: PriorityQueues<Entry<P, R>>;
  private readonly pool = new InstancePool();
  private readonly instances: InstanceLifecycle;
  private readonly ordering: OrderedRelease<Answer<P, R>>;
  private state: SchedulerState = 'created';
  private seq = 0;
  /** ids for requests that come without one (refused ones too, so ids never repeat) */
  private idSeq = 0;
  private pumping = false;
  private timer: TimerHandle | null = null;
  private timerAt = Infinity;
  private stopWaiters: (() => void)[] = [];
  private readonly idPrefix: string;
  /** batches an instance may hold behind its running one (the executor's `prefetch`) */
  private readonly prefetch: number;
  private readonly answers: Answers<P, R>;
  private readonly runner: BatchRunner<P, R>;

  constructor(opts: ModelSchedulerOptions<P, R>) {
    this.model = opts.model;
    this.version = opts.version;
    this.clock = opts.clock;
    this.executor = opts.executor;
    this.config = opts.config;
    this.policy = policyFromConfig(opts.config);
    this.groups = groupsFromConfig(opts.model, opts.config.instance_group);
    this.queues = new PriorityQueues<Entry<P, R>>(this.policy.defaultLevel);
    this.emit = new Emitter(opts.bus, opts.model, opts.version, opts.clock);
    this.answers = new Answers(this.stats, this.emit, opts.clock);
    this.ordering = new OrderedRelease(this.policy.preserveOrdering, (a) => this.answers.deliver(a));
    this.instances = new InstanceLifecycle(this.pool, opts.executor, this.emit, {
      idle: () => {
        this.runner.moveHeldBatchesToIdle();
        this.pump();
      },
      noneUsable: () => {
        // during start() the caller hears it from start() itself; later, queued requests must not wait forever
        if (this.state !== 'starting') this.failAllQueued('unavailable', `model ${this.model} has no usable instance`);
      },
      stopped: () => this.state === 'stopped',
    });
    this.idPrefix = opts.idPrefix ?? `${opts.model}:${opts.version}:`;
    this.prefetch = Math.max(0, Math.floor(opts.executor.prefetch ?? 0));
    this.runner = new BatchRunner(opts.clock, opts.executor, this.pool, this.instances, this.emit, this.stats, this.answers, this.ordering, this.idPrefix, {
      pump: (prefetchNow) => this.pump(prefetchNow),
      stopped: () => this.state === 'stopped',
      answered: () => this.notifyIfDrained(),
    });
  }

  get currentState(): SchedulerState {
    return this.state;
  }

  get currentPolicy(): BatchingPolicy {
    return this.policy;
  }

  /** the effective config slice (after live changes), Triton field names */
  get currentConfig(): SchedulerConfigInput {
    return { ...this.config, instance_group: this.groups.map((g) => ({ ...g })) };
  }

  /** Start every instance. Resolves when at least one is idle; rejects when none could start. */
  async start(): Promise<void> {
    if (this.state !== 'created') throw new Error(`scheduler for ${this.model} already started`);
    this.state = 'starting';
    const starts: Promise<boolean>[] = [];
    for (const g of this.groups) for (let i = 0; i < instancesInGroup(g); i++) starts.push(this.instances.start(g));
    const ok = (await Promise.all(starts)).some(Boolean);
    if (!ok) {
      const reasons = this.pool.instances.map((p) => `${p.info.name}: ${p.reason}`).join('; ');
      this.state = 'failed';
      this.failAllQueued('unavailable', `model ${this.model} has no instance that could start`);
      throw new Error(`no instance of ${this.model} could start${reasons ? ` (${reasons})` : ''}`);
    }
    if (this.state === 'starting') this.state = 'ready';
  }

  /** Promise form of `submit`. */
  enqueue(req: SchedulerRequest<P>): Promise<R> {
    return new Promise<R>((resolve, reject) => this.submit(req, (err, res) => (err ? reject(err) : resolve(res as R))));
  }

  /**
   * Callback form (no promise per request; the simulator's closed-loop driver needs the answer synchronously).
   * `settle` is called exactly once. Returns the request id.
   */
  submit(req: SchedulerRequest<P>, settle: Settle<R>): string {
    const id = req.id ?? this.idPrefix + ++this.idSeq;
    const policy = this.policy;
    if (this.state !== 'ready' && this.state !== 'starting') {
      const why = this.state === 'stopping' || this.state === 'stopped' ? 'is unloading' : 'is not ready';
      return this.answers.refuse(id, req, settle, 'unavailable', `model ${this.model} version ${this.version} ${why}`, 503);
    }
    const bs = req.batchSize;
    if (!Number.isInteger(bs) || bs < 1) return this.answers.refuse(id, req, settle, 'invalid', `batch size must be a positive integer, got ${bs}`, 400);
    if (policy.maxBatchSize > 0 ? bs > policy.maxBatchSize : bs !== 1) {
      return this.answers.refuse(id, req, settle, 'invalid', `batch size ${bs} exceeds max_batch_size ${policy.maxBatchSize}`, 400);
    }
    const level = levelFor(policy, req.priority);
    const qp = queueFor(policy, level);
    // held batches' requests have not begun: they still count, as in Triton's queue (which holds them)
    if (qp.maxQueueSize > 0 && this.queues.levelSize(level) + this.runner.heldAt(level) >= qp.maxQueueSize) {
      return this.answers.refuse(id, req, settle, 'queue_full', 'Exceeds maximum queue size', 503, level);
    }
    const now = this.clock.now();
    const timeout = qp.defaultTimeoutUs > 0 ? timeoutFor(qp, req.timeoutUs) : 0;
    const entry: Entry<P, R> = {
      req, id, seq: this.seq++, level, batchSize: bs, shapeKey: req.shapeKey ?? '', enqueuedUs: now,
      deadlineUs: timeout > 0 ? now + timeout : 0, queued: true, delayed: false, settle,
    };
    this.queues.push(entry);
    this.stats.accepted++;
    this.emit.queued(entry, this.queues.levelSize(level));
    if (this.canTakeBatch()) this.pump(false);
    else if (entry.deadlineUs > 0) this.armTimer(entry.deadlineUs);
    return id;
  }

  /** Change dynamic batching fields live; applies at the next decision. Throws (changing nothing) on bad input. */
  updateDynamicBatching(patch: DynamicBatchingPatch, by: string, reason?: AutotuneChangeReason) {
    return this.applyLiveChange(applyBatchingPatch(this.config, patch), by, reason);
  }

  /**
   * Cancels a request that is still queued (its client went away): it leaves the queue, is answered
   * 'cancelled' (HTTP 499, as nginx names a client that closed its request) and takes no batch slot.
   * Returns false when it is not queued: already answered, or in a batch handed to an instance, which
   * completes (the caller discards the answer).
   */
  cancel(id: string): boolean {
    const e = this.queues.all().find((x) => x.id === id);
    if (!e) return false;
    this.queues.remove(e);
    this.reject(e, 'cancelled', `request ${id} was cancelled: its client went away before it was scheduled`, 499);
    this.pump();
    return true;
  }

  /**
   * Runs on a change computed once elsewhere (core's live-config planBatchingChange over the server's whole
   * config): the new config, its policy and the change list, without merging the patch again.
   */
  applyLiveChange(next: PatchResult, by: string, reason?: AutotuneChangeReason) {
    const { config, policy, changes } = next;
    if (changes.length === 0) return changes;
    const old = this.policy;
    this.config = config;
    this.policy = policy;
    if (policy.levels !== old.levels || policy.defaultLevel !== old.defaultLevel) {
      this.queues = relevelled(this.queues, policy.defaultLevel, (l) => levelFor(policy, l));
    }
    if (policy.maxBatchSize < old.maxBatchSize) {
      for (const e of this.queues.all()) {
        if (e.batchSize > policy.maxBatchSize) {
          this.queues.remove(e);
          this.reject(e, 'invalid', `batch size ${e.batchSize} exceeds max_batch_size ${policy.maxBatchSize} after reconfiguration`, 400);
        }
      }
    }
    this.ordering.setEnabled(policy.preserveOrdering, this.seq);
    this.emit.configChanged(changes, by, reason);
    this.pump();
    return changes;
  }

  /**
   * Set a group's instance count (per device for GPU groups). New instances start through the executor;
   * removed ones (highest index first) finish their current batch, then stop. Resolves when the new ones
   * have started.
   */
  async setInstanceCount(group: string | undefined, count: number, by: string): Promise<void> {
    const gi = group === undefined ? 0 : this.groups.findIndex((g) => g.name === group);
    const g = this.groups[gi];
    if (!g) throw new SchedulerError('invalid', `model ${this.model} has no instance group "${group}" (groups: ${this.groups.map((x) => x.name).join(', ')})`, 400);
    if (!Number.isInteger(count) || count < 0 || count > 64) throw new SchedulerError('invalid', `instance count must be an integer 0..64, got ${count}`, 400);
    if (this.state !== 'ready' && this.state !== 'starting') throw new SchedulerError('unavailable', `model ${this.model} is not ready`, 503);
    const others = this.groups.reduce((n, x, i) => n + (i === gi ? 0 : instancesInGroup(x)), 0);
    if (count === 0 && others === 0) throw new SchedulerError('invalid', 'a model needs at least one instance', 400);
    const old = g.count;
    if (old === count) return;
    g.count = count;
    this.emit.configChanged([{ path: `instance_group[${gi}].count`, old, new: count }], by);
    await this.instances.resize(g);
  }

  /** Unload: refuse new requests ('unavailable'), flush and finish everything accepted, then stop instances. */
  async stop(): Promise<void> {
    if (this.state === 'stopped' || this.state === 'failed') return;
    if (this.state !== 'stopping') {
      this.state = 'stopping';
      if (this.pool.usableCount === 0) this.failAllQueued('unavailable', `model ${this.model} is unloading and has no instance`);
      this.pump();
    }
    if (!this.drained()) await new Promise<void>((resolve) => this.stopWaiters.push(resolve));
    if (this.timer !== null) this.clock.clearTimer(this.timer);
    this.timer = null;
    await Promise.all(this.pool.instances.filter((p) => p.state !== 'stopped' && p.state !== 'failed').map((p) => this.instances.stop(p)));
    this.state = 'stopped';
  }

  snapshot(): SchedulerSnapshot {
    const d = decideBatch(this.queues, this.policy, this.clock.now());
    return snapshotOf(this.state, this.queues.depthByLevel(), this.pool.instances, d, this.clock.now(), this.stats, this.ordering.heldCount);
  }

  // ---- the loop ----

  /**
   * Commits batches while an instance can take one. `prefetchNow` false (arrivals, completions) leaves busy
   * instances' prefetch room for a timer at the current time: requests usually arrive in bursts (the
   * answers of a batch come back as new requests in one turn), and a batch handed to an instance can no
   * longer grow, so deciding once the burst is in forms the batch Triton's queued payload would have
   * grown into. A busy instance only gets a batch that could not grow anyway (mayHandOverEarly); any other
   * keeps growing in the queue until an instance is free, as Triton's queued payload does.
   */
  private pump(prefetchNow = true): void {
    if (this.pumping) return; // a synchronous completion inside dispatch: the running loop picks it up
    this.pumping = true;
    try {
      const flush = this.state === 'stopping';
      const depth = this.prefetchDepth();
      while (this.queues.size > 0) {
        // an idle instance first; only when none is idle does a busy one get a batch behind its running one
        const busyTarget = this.pool.idleCount > 0 ? undefined : this.pool.prefetchTarget(depth);
        if (this.pool.idleCount === 0 && busyTarget === undefined) break;
        if (busyTarget && !prefetchNow) {
          this.armTimer(this.clock.now());
          break;
        }
        const d = decideBatch(this.queues, this.policy, this.clock.now(), { flush });
        if (d.kind === 'wait') {
          // for a busy instance only growth can make the batch ready, and an arrival pumps again
          if (!busyTarget) this.armTimer(d.untilUs);
          break;
        }
        // (idleCount may count an instance that left the idle list: then a busy one, as above)
        const inst = busyTarget ?? this.pool.takeIdle() ?? (prefetchNow ? this.pool.prefetchTarget(depth) : undefined);
        if (!inst || (inst.state !== 'idle' && !mayHandOverEarly(d, this.policy))) break;
        this.runner.dispatch(inst, this.queues.takeFirst(d.count), d);
      }
      const deadline = this.queues.nextDeadline();
      if (deadline !== Infinity) this.armTimer(deadline);
    } finally {
      this.pumping = false;
    }
    this.notifyIfDrained();
  }

  /** batches a busy instance may hold behind its running one: the executor's prefetch, where the policy allows it */
  private prefetchDepth(): number {
    return this.policy.prefetch ? this.prefetch : 0;
  }

  private canTakeBatch(): boolean {
    return this.pool.idleCount > 0 || this.pool.prefetchTarget(this.prefetchDepth()) !== undefined;
  }

  private armTimer(atUs: number): void {
    if (atUs >= this.timerAt) return; // an earlier wake-up is armed; it re-evaluates everything
    if (this.timer !== null) this.clock.clearTimer(this.timer);
    this.timerAt = atUs;
    this.timer = this.clock.setTimer(atUs, this.onTimer);
  }

  private onTimer = (): void => {
    this.timer = null;
    this.timerAt = Infinity;
    const now = this.clock.now();
    for (const e of this.queues.popExpired(now)) {
      if (queueFor(this.policy, e.level).timeoutAction === 'DELAY') {
        this.queues.moveToDelayed(e);
        this.stats.delayed++;
        this.emit.delayed(e);
      } else {
        this.queues.remove(e);
        this.reject(e, 'timeout', 'Request timeout expired', 503);
      }
    }
    this.pump();
  };

  // ---- refusals ----

  /** a queued request refused now: it leaves the queue's ordering too */
  private reject(e: Entry<P, R>, reason: RejectReason, message: string, status: number): void {
    this.ordering.settle(e.seq, null);
    this.answers.rejectQueued(e, reason, message, status);
  }

  private failAllQueued(reason: RejectReason, message: string): void {
    for (const e of this.queues.all()) {
      this.queues.remove(e);
      this.reject(e, reason, message, 503);
    }
  }

  private notifyIfDrained(): void {
    if (this.state === 'stopping' && this.drained()) this.stopWaiters.splice(0).forEach((w) => w());
  }

  private drained(): boolean {
    return this.queues.size === 0 && this.pool.busyCount === 0 && this.ordering.heldCount === 0;
  }
}
