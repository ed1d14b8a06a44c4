/**
 * One model version's scheduler: priority queues + queue policy, the batch decision, the instance pool and
 * the executor, all on one injected Clock. The batcher's loop (`pump`, batch-forming.ts) runs only when
 * something can change the outcome (an arrival while a batch can be formed, an instance freeing up, a
 * timer). The dispatch rule,
 * the same for every executor and the simulator (Triton's): a batch is formed for a free instance; where
 * Triton prefetches (BatchingPolicy.prefetch), while every instance is busy the batcher queues payloads
 * for the next free instance and grows the newest while it waits (payloads.ts, at most twice the instance
 * count), and a free instance takes the oldest, merging the ones that waited past the delay. Otherwise
 * the pending batch simply keeps growing in the queue. Formed batches are run and answered by BatchRunner,
 * which also hides the hand-off for executors that can take a batch back (the oldest payload is lent).
 *
 * Guarantee: every accepted request is answered exactly once (result, or SchedulerError), through config
 * changes, instance count changes, executor failures and unload.
 */
import type { Clock } from '../clock/clock';
import type { InferError } from '../errors/infer-error';
import { errors } from '../errors/messages';
import type { AutotuneChangeReason, EventBus, RejectReason } from '../events';
import type { DynamicBatchingPatch } from '../live-config/fields';
import type { SchedulerConfigInput } from './config-input';
import { decideBatch } from './decide';
import { BatchForming } from './batch-forming';
import { PayloadQueue } from './payloads';
import { Answers, type Answer } from './answers';
import { Emitter } from './emitter';
import { deviceFor, groupsFromConfig, instancesInGroup, InstancePool, type GroupSpec } from './instance-pool';
import { ResourceGate } from './resource-gate';
import type { RateLimiter } from '../rate-limiter/rate-limiter';
import { InstanceLifecycle } from './instance-lifecycle';
import { BatchRunner } from './batch-runner';
import { OrderedRelease } from './ordering';
import { levelFor, policyFromConfig, queueFor, timeoutFor, type BatchingPolicy } from './policy';
import { PriorityQueues, relevelled } from './priority-queues';
import type { QueueEntry, Settle } from './queue-entry';
import type { PatchResult } from './reconfigure';
import { planBatchingChange, planInstanceCount } from './live-change';
import { emptyStats, snapshotOf, type SchedulerSnapshot, type SchedulerStats } from './snapshot';
import { SchedulerError, type Executor, type SchedulerRequest } from './types';
import type { Scheduler } from './seam';
import { WakeUp } from './wake-up';

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
  /** the server's rate limiter, shared by every model (resource-gate.ts); none = batches begin at once */
  rateLimiter?: RateLimiter;
}

type Entry<P, R> = QueueEntry<P, R>;

export class ModelScheduler<P = unknown, R = unknown> implements Scheduler<P, R> {
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
  private readonly wakeUp: WakeUp;
  private stopWaiters: (() => void)[] = [];
  private readonly idPrefix: string;
  private readonly answers: Answers<P, R>;
  private readonly runner: BatchRunner<P, R>;
  private readonly forming: BatchForming<P, R>;
  /** batches queued for the next free instance while every instance is busy (prefetch only) */
  private readonly payloads = new PayloadQueue<Entry<P, R>>();
  /** the max_batch_size the model was created with: a live change may lower it, never raise it past this */
  private readonly loadedMaxBatch: number;
  private readonly gate: ResourceGate;

  constructor(opts: ModelSchedulerOptions<P, R>) {
    this.model = opts.model;
    this.version = opts.version;
    this.clock = opts.clock;
    this.executor = opts.executor;
    this.config = opts.config;
    this.loadedMaxBatch = opts.config.max_batch_size ?? 0;
    this.policy = policyFromConfig(opts.config);
    this.groups = groupsFromConfig(opts.model, opts.config.instance_group);
    this.queues = new PriorityQueues<Entry<P, R>>(this.policy.defaultLevel);
    this.emit = new Emitter(opts.bus, opts.model, opts.version, opts.clock);
    this.answers = new Answers(this.stats, this.emit, opts.clock);
    this.ordering = new OrderedRelease(this.policy.preserveOrdering, (a) => this.answers.deliver(a));
    this.idPrefix = opts.idPrefix ?? `${opts.model}:${opts.version}:`;
    this.gate = new ResourceGate(opts.rateLimiter, opts.model, this.idPrefix);
    this.instances = new InstanceLifecycle(this.pool, opts.executor, this.emit, {
      idle: () => this.pump(),
      noneUsable: () => {
        // during start() the caller hears it from start() itself; later, queued requests must not wait forever
        if (this.state !== 'starting') this.failAllQueued('unavailable', errors.MODEL_UNAVAILABLE(`model ${this.model}`, 'has no usable instance'));
      },
      stopped: () => this.state === 'stopped',
    }, this.gate);
    this.wakeUp = new WakeUp(opts.clock, this.onTimer);
    this.runner = new BatchRunner(opts.clock, opts.executor, this.pool, this.instances, this.gate, this.emit, this.stats, this.answers, this.ordering, this.idPrefix, {
      pump: (prefetchNow) => this.pump(prefetchNow),
      takeQueued: (entries) => {
        this.queues.takeHead(entries);
        this.payloads.dropHead(entries);
      },
      stopped: () => this.state === 'stopped',
      answered: () => this.notifyIfDrained(),
    });
    this.forming = new BatchForming({
      queues: () => this.queues,
      policy: () => this.policy,
      flushing: () => this.state === 'stopping',
      passed: () => this.notifyIfDrained(),
    }, opts.clock, this.pool, this.payloads, this.runner, this.wakeUp);
  }

  get currentState(): SchedulerState {
    return this.state;
  }

  get currentPolicy(): BatchingPolicy {
    return this.policy;
  }

  /** the effective config slice (after live changes), Triton field names */
  get currentConfig(): SchedulerConfigInput {
    return { ...this.config, instance_group: this.groups.map(({ rateLimiter, ...g }) => ({ ...g, ...(rateLimiter ? { rate_limiter: rateLimiter } : {}) })) };
  }

  /** Start every instance. Resolves when at least one is idle; rejects when none could start. */
  async start(): Promise<void> {
    if (this.state !== 'created') throw new Error(`scheduler for ${this.model} already started`);
    this.state = 'starting';
    try {
      this.gate.check(this.groups, deviceFor); // resources the server cannot give fail the load before any instance starts
    } catch (err) {
      this.state = 'failed';
      throw err;
    }
    const starts: Promise<boolean>[] = [];
    for (const g of this.groups) for (let i = 0; i < instancesInGroup(g); i++) starts.push(this.instances.start(g));
    const ok = (await Promise.all(starts)).some(Boolean);
    if (!ok) {
      const reasons = this.pool.instances.map((p) => `${p.info.name}: ${p.reason}`).join('; ');
      this.state = 'failed';
      this.failAllQueued('unavailable', errors.MODEL_UNAVAILABLE(`model ${this.model}`, 'has no instance that could start'));
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
    let id = req.id;
    // the executor sees the id too (a python model's BLS calls name their parent request by it)
    if (id === undefined) id = req.id = this.idPrefix + ++this.idSeq;
    const policy = this.policy;
    if (this.state !== 'ready' && this.state !== 'starting') {
      const why = this.state === 'stopping' || this.state === 'stopped' ? 'is unloading' : 'is not ready';
      return this.answers.refuse(id, req, settle, 'unavailable', errors.MODEL_UNAVAILABLE(`model ${this.model} version ${this.version}`, why));
    }
    const bs = req.batchSize;
    if (!Number.isInteger(bs) || bs < 1) return this.answers.refuse(id, req, settle, 'invalid', errors.INVALID(`batch size must be a positive integer, got ${bs}`));
    if (policy.maxBatchSize > 0 ? bs > policy.maxBatchSize : bs !== 1) {
      return this.answers.refuse(id, req, settle, 'invalid', errors.INVALID(`batch size ${bs} exceeds max_batch_size ${policy.maxBatchSize}`));
    }
    const level = levelFor(policy, req.priority);
    const qp = queueFor(policy, level);
    if (qp.maxQueueSize > 0 && this.queues.levelSize(level) >= qp.maxQueueSize) {
      return this.answers.refuse(id, req, settle, 'queue_full', errors.QUEUE_FULL(), level);
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
    if (this.forming.canTakeBatch()) this.pump(false);
    else if (entry.deadlineUs > 0) this.armTimer(entry.deadlineUs);
    return id;
  }

  /**
   * Change dynamic batching fields live; applies at the next decision. Planned by core's one live-change
   * planner (planBatchingChange, as the server plans it), with the max_batch_size this scheduler was
   * created with as the loaded model's limit. Throws (changing nothing) on bad input, in the planner's words (a PolicyError: INVALID_ARG).
   */
  updateDynamicBatching(patch: DynamicBatchingPatch, by: string, reason?: AutotuneChangeReason) {
    return this.applyLiveChange(planBatchingChange(this.model, this.config, patch, this.loadedMaxBatch), by, reason);
  }

  /**
   * Cancels a request that is still queued (its client went away): it leaves the queue, is answered
   * 'cancelled' (CANCELLED; HTTP 499, as nginx names a client that closed its request) and takes no batch slot.
   * Returns false when it is not queued: already answered, or in a batch handed to an instance, which
   * completes (the caller discards the answer).
   */
  cancel(id: string): boolean {
    const e = this.queues.all().find((x) => x.id === id);
    if (!e) return false;
    if (this.runner.lent?.entries.includes(e)) {
      this.runner.settleLent();
      if (!e.queued) return false; // its batch had begun
    }
    this.payloads.remove(e);
    this.queues.remove(e);
    this.reject(e, 'cancelled', errors.CLIENT_CANCELLED(`request ${id} was cancelled: its client went away before it was scheduled`));
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
    this.runner.settleLent(); // lent on the old policy's decision
    this.payloads.clear(); // grown on the old policy's decisions: their requests are decided afresh
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
          this.reject(e, 'invalid', errors.INVALID(`batch size ${e.batchSize} exceeds max_batch_size ${policy.maxBatchSize} after reconfiguration`));
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
  async setInstanceCount(group: string | undefined, count: number, by: string, reason?: AutotuneChangeReason): Promise<void> {
    // core's one planner (LIVE_LIMITS' 1..64, the group named or the only one), over the groups as they run now
    const plan = planInstanceCount(this.model, this.currentConfig, group, count);
    if (this.state !== 'ready' && this.state !== 'starting') throw SchedulerError.of('unavailable', errors.MODEL_UNAVAILABLE(`model ${this.model}`, 'is not ready'));
    if (plan.changes.length === 0) return;
    const g = this.groups.find((x) => x.name === plan.group)!;
    g.count = count;
    this.emit.configChanged(plan.changes, by, reason);
    await this.instances.resize(g);
  }

  /** Unload: refuse new requests ('unavailable'), flush and finish everything accepted, then stop instances. */
  async stop(): Promise<void> {
    if (this.state === 'stopped' || this.state === 'failed') return;
    if (this.state !== 'stopping') {
      this.state = 'stopping';
      if (this.pool.usableCount === 0) this.failAllQueued('unavailable', errors.MODEL_UNAVAILABLE(`model ${this.model}`, 'is unloading and has no instance'));
      this.pump();
    }
    if (!this.drained()) await new Promise<void>((resolve) => this.stopWaiters.push(resolve));
    this.wakeUp.clear();
    await Promise.all(this.pool.instances.filter((p) => p.state !== 'stopped' && p.state !== 'failed').map((p) => this.instances.stop(p)));
    this.state = 'stopped';
  }

  snapshot(): SchedulerSnapshot {
    // `pending` is the batch the queue's head would form now (queued payloads' requests included: they stay
    // queued until an instance takes them); `payloads` says how many of them wait in queued payloads
    const d = decideBatch(this.queues, this.policy, this.clock.now());
    const payloads = { count: this.payloads.size, requests: this.payloads.entryCount, lent_requests: this.runner.lent?.entries.length ?? 0 };
    return snapshotOf(this.state, this.queues.depthByLevel(), this.pool.instances, d, this.clock.now(), this.stats, this.ordering.heldCount, payloads, (p) => this.gate.isWaiting(p));
  }

  // ---- the loop (batch-forming.ts) ----

  private pump(prefetchNow = true): void {
    this.forming.pump(prefetchNow);
  }

  private armTimer(atUs: number): void {
    this.wakeUp.arm(atUs);
  }

  private onTimer = (): void => {
    const now = this.clock.now();
    for (const e of this.queues.popExpired(now)) {
      if (queueFor(this.policy, e.level).timeoutAction === 'DELAY') {
        this.queues.moveToDelayed(e);
        this.stats.delayed++;
        this.emit.delayed(e);
      } else {
        this.queues.remove(e);
        this.reject(e, 'timeout', errors.TIMEOUT());
      }
    }
    this.pump();
  };

  // ---- refusals ----

  /** a queued request refused now: it leaves the queue's ordering too */
  private reject(e: Entry<P, R>, reason: RejectReason, error: InferError): void {
    this.ordering.settle(e.seq, null);
    this.answers.rejectQueued(e, reason, error);
  }

  private failAllQueued(reason: RejectReason, error: InferError): void {
    this.runner.settleLent();
    this.payloads.clear();
    for (const e of this.queues.all()) {
      this.queues.remove(e);
      this.reject(e, reason, error);
    }
  }

  private notifyIfDrained(): void {
    if (this.state === 'stopping' && this.drained()) this.stopWaiters.splice(0).forEach((w) => w());
  }

  private drained(): boolean {
    return this.queues.size === 0 && this.pool.busyCount === 0 && this.ordering.heldCount === 0;
  }
}
