/**
 * Triton's sequence batcher for stateful models (sequence_batch_scheduler.cc), on the same contract as the
 * dynamic batcher's ModelScheduler: submit/cancel/start/stop/snapshot, the Executor, the EventBus events and
 * the injected Clock. A sequence (a correlation id from START to END) is bound to one slot of one instance;
 * sequences beyond the slots wait in a backlog and take the next slot released. Each instance runs one batch
 * at a time, formed by its strategy (lanes.ts: direct or oldest). Each request handed to the executor
 * carries its `step` (slot, control values, implicit state), null requests padding empty direct slots too.
 *
 * The reaper (Triton's ReaperThread) force-ends a sequence idle for max_sequence_idle_microseconds (its slot
 * is released behind the requests it already has; a later request without START is refused), and rejects a
 * backlogged sequence whose request timeout runs out, all its queued requests with it.
 *
 * Guarantee: every accepted request is answered exactly once.
 */
import type { Clock } from '../../clock/clock';
import { errors } from '../../errors/messages';
import type { EventBus } from '../../events';
import type { InferError } from '../../errors/infer-error';
import { Answers } from '../answers';
import type { SchedulerConfigInput } from '../config-input';
import { Emitter } from '../emitter';
import { groupsFromConfig, instancesInGroup, InstancePool } from '../instance-pool';
import { InstanceLifecycle } from '../instance-lifecycle';
import type { Settle } from '../queue-entry';
import { emptyStats, type SchedulerStats } from '../snapshot';
import type { ModelSchedulerOptions, SchedulerState } from '../model-scheduler';
import { SchedulerError, type SchedulerRequest } from '../types';
import type { Scheduler } from '../seam';
import { backlogTimeoutError, batchSizeError, corridTypeError, inSequence, missingIdError, missingStartError, sequenceKey, stoppingError } from './correlation';
import { Lanes, type Entry, type Lane, type Slot } from './lanes';
import { sequencePolicy, type SequencePolicy } from './policy';
import { SlotTable, type Backlog } from './slots';
import { sequenceSnapshot, sequenceView, type SequenceSnapshot } from './snapshot';
import { sequenceViewKey } from './view';
import { StateStore } from './state';
import { WakeUp } from '../wake-up';

/** Triton's reaper looks at an idle sequence still in the backlog again after this long (µs). */
const BACKLOG_IDLE_RECHECK_US = 50_000;

export interface SequenceSchedulerOptions<P, R> extends ModelSchedulerOptions<P, R> {
  /** bytes of initial_state data files by state input name (the server reads them) */
  initialStateData?: Readonly<Record<string, Uint8Array>>;
  /**
   * Triton's own test seam (TRITONSERVER_DELAY_SCHEDULER / TRITONSERVER_BACKLOG_DELAY_SCHEDULER): form no
   * batch until the slot queues together hold `requests` requests and the backlog `backlog`, once. Its qa
   * tests use it so that every request of a scenario is queued before the first batch; so do ours.
   */
  holdUntil?: { requests: number; backlog?: number };
  /** where the bytes of live sequences' implicit state are counted (the server's memory ledger) */
  stateMemory?: { update(bytes: number): void; release(): void };
}

export class SequenceScheduler<P = unknown, R = unknown> implements Scheduler<P, R> {
  readonly model: string;
  readonly version: string;
  readonly stats: SchedulerStats = emptyStats();
  readonly policy: SequencePolicy;
  private readonly clock: Clock;
  private readonly emit: Emitter;
  private readonly answers: Answers<P, R>;
  private readonly pool = new InstancePool();
  private readonly instances: InstanceLifecycle;
  private readonly table = new SlotTable<Entry<P, R>>();
  private readonly states: StateStore;
  private readonly lanes: Lanes<P, R>;
  /** accepted requests not yet in a batch, by id (slot queues, backlog, the oldest strategy's issue queue) */
  private readonly waiting = new Map<string, Entry<P, R>>();
  /** last arrival per sequence key (Triton's correlation_id_timestamps_), for the idle reaper */
  private readonly lastSeen = new Map<string, number>();
  private state: SchedulerState = 'created';
  private seq = 0;
  private idSeq = 0;
  private readonly wakeUp: WakeUp;
  private stopWaiters: (() => void)[] = [];
  private readonly idPrefix: string;
  private hold: { requests: number; backlog?: number } | undefined;
  /** the last view sent as a `sequence.slots` event (sent again only when it differs) */
  private lastViewKey = '';
  /** something the view shows may have changed since it was last looked at (a request to a bound slot changes nothing) */
  private viewDirty = true;

  constructor(private readonly opts: SequenceSchedulerOptions<P, R>) {
    this.model = opts.model;
    this.version = opts.version;
    this.clock = opts.clock;
    this.policy = sequencePolicy(opts.config, opts.initialStateData);
    this.states = new StateStore(this.policy.states, opts.stateMemory && ((bytes) => opts.stateMemory!.update(bytes)));
    this.idPrefix = opts.idPrefix ?? `${opts.model}:${opts.version}:`;
    this.hold = opts.holdUntil;
    this.wakeUp = new WakeUp(opts.clock, this.onTimer);
    this.emit = new Emitter(opts.bus, opts.model, opts.version, opts.clock);
    this.answers = new Answers(this.stats, this.emit, opts.clock);
    this.instances = new InstanceLifecycle(this.pool, opts.executor, this.emit, {
      idle: () => {
        if (this.state === 'starting') this.adoptStarted();
        this.pumpAll();
      },
      noneUsable: () => undefined, // start() reports it
      stopped: () => this.state === 'stopped',
    });
    this.lanes = new Lanes<P, R>({
      clock: opts.clock, executor: opts.executor, pool: this.pool, emit: this.emit, stats: this.stats, answers: this.answers,
      policy: this.policy, states: this.states, idPrefix: this.idPrefix,
      flushing: () => this.state === 'stopping',
      left: (e) => this.waiting.delete(e.id),
      release: (slot) => this.releaseSlot(slot),
      wakeAt: (us) => this.armTimer(us),
      settled: () => {
        this.viewDirty = true; // a batch ran: state bytes and released slots
        this.notifyIfDrained();
        this.publishView();
      },
      held: () => this.held(),
    });
  }

  get currentState(): SchedulerState {
    return this.state;
  }

  /** bytes of implicit state held for live sequences (for the memory ledger) */
  get stateBytes(): number {
    return this.states.bytes;
  }

  /** Start every instance; each brings its slots. Rejects when none could start. */
  async start(): Promise<void> {
    if (this.state !== 'created') throw new Error(`scheduler for ${this.model} already started`);
    this.state = 'starting';
    const starts: Promise<boolean>[] = [];
    for (const g of groupsFromConfig(this.model, this.opts.config.instance_group)) {
      for (let i = 0; i < instancesInGroup(g); i++) starts.push(this.instances.start(g));
    }
    await Promise.all(starts);
    this.adoptStarted();
    if (this.lanes.all.length === 0) {
      this.state = 'failed';
      this.opts.stateMemory?.release();
      throw new Error(`no instance of ${this.model} could start`);
    }
    if (this.state === 'starting') this.state = 'ready';
    this.pumpAll();
  }

  /**
   * Give each started instance its lane and slots, once no instance is still loading (so lanes keep the
   * instances' start order whichever finished loading first). Runs from the instances' idle hook too:
   * an executor that starts instances synchronously (the simulator's) has them all idle before start()'s
   * await returns, and a synchronous virtual-clock run never gets back to it.
   */
  private adoptStarted(): void {
    if (this.pool.instances.some((p) => p.state === 'loading')) return;
    this.viewDirty = true;
    for (const inst of this.pool.instances) {
      if (inst.state !== 'idle' || this.lanes.all.some((l) => l.inst === inst)) continue;
      for (const ref of this.lanes.add(inst)) this.table.addFree(ref);
    }
    // sequences that arrived while the instances were starting waited in the backlog: give them slots now
    while (this.table.backlog.length > 0 && this.table.freeCount > 0) {
      const slot = this.lanes.slotAt(this.table.takeFree()!);
      this.releaseSlot(slot);
      this.lanes.adopted(slot);
    }
  }

  enqueue(req: SchedulerRequest<P>): Promise<R> {
    return new Promise<R>((resolve, reject) => this.submit(req, (err, res) => (err ? reject(err) : resolve(res as R))));
  }

  /** The request checks (Triton's order: the id's type, batch size 1, a non-zero id), undefined when it passes. */
  requestError(req: SchedulerRequest<P>): InferError | undefined {
    const id = req.sequence?.id;
    return corridTypeError(this.policy.controls.corrid, this.model, id) ?? batchSizeError(this.model, req.batchSize)
      ?? (inSequence(id) ? undefined : missingIdError(this.model));
  }

  /** Why `req` is refused before it reaches the sequence table, if it is (Triton's order). */
  private refusal(req: SchedulerRequest<P>): { reason: 'invalid' | 'unavailable'; error: InferError } | undefined {
    const open = this.state === 'ready' || this.state === 'starting' || this.state === 'stopping';
    if (!open) return { reason: 'unavailable', error: errors.MODEL_UNAVAILABLE(`model ${this.model} version ${this.version}`, this.state === 'stopped' ? 'is unloading' : 'is not ready') };
    const invalid = this.requestError(req);
    if (invalid) return { reason: 'invalid', error: invalid };
    if (this.state === 'stopping' && req.sequence!.start) return { reason: 'unavailable', error: stoppingError() };
    return undefined;
  }

  /** `settle` is called exactly once. Returns the request id. */
  submit(req: SchedulerRequest<P>, settle: Settle<R>): string {
    const id = req.id ?? (req.id = this.idPrefix + ++this.idSeq);
    const refusal = this.refusal(req);
    if (refusal) return this.answers.refuse(id, req, settle, refusal.reason, refusal.error);
    const { id: cid, start = false, end = false } = req.sequence!;
    const key = sequenceKey(cid);
    const bound = this.table.bound.get(key);
    const collecting = this.table.collecting.get(key);
    if (!start && !bound && !collecting) return this.answers.refuse(id, req, settle, 'invalid', missingStartError(this.model, cid));

    const now = this.clock.now();
    this.lastSeen.set(key, now);
    this.armTimer(now + this.policy.idleUs);
    const entry: Entry<P, R> = {
      req, id, seq: this.seq++, level: 1, batchSize: 1, shapeKey: req.shapeKey ?? '', enqueuedUs: now, deadlineUs: 0,
      queued: true, delayed: false, settle, cid, key, start, end,
    };
    this.waiting.set(id, entry);
    this.stats.accepted++;
    this.emit.queued(entry, this.waiting.size);

    if (!bound) this.viewDirty = true;
    if (bound) {
      // a START here restarts the sequence in its slot (Triton logs the conflict and goes on)
      if (end) this.table.bound.delete(key);
      this.lanes.enqueue(this.lanes.slotAt(bound), entry);
    } else if (collecting) {
      this.addToBacklog(collecting, entry, now);
      if (end) this.table.collecting.delete(key);
    } else {
      const ref = this.table.takeFree();
      if (ref) {
        if (!end) this.table.bound.set(key, ref);
        this.lanes.enqueue(this.lanes.slotAt(ref), entry);
      } else {
        const b: Backlog<Entry<P, R>> = { key, id: cid, entries: [], expiresUs: Infinity };
        this.table.backlog.push(b);
        if (!end) this.table.collecting.set(key, b);
        this.addToBacklog(b, entry, now);
      }
    }
    this.pumpAll();
    return id;
  }

  /**
   * A client went away: a request not yet in a batch is answered CANCELLED, and with it its sequence ends
   * as in Triton (every queued request of the sequence is cancelled and its slot released in turn).
   */
  cancel(id: string): boolean {
    const e = this.waiting.get(id);
    if (!e) return false;
    this.viewDirty = true;
    const error = errors.CLIENT_CANCELLED(`request ${id} was cancelled: its client went away before it was scheduled`);
    const backlog = this.table.backlog.find((b) => b.entries.includes(e));
    if (backlog) {
      this.table.dropBacklog(backlog);
      for (const x of backlog.entries) this.rejectWaiting(x, 'cancelled', error);
    } else if (e.slot && this.lanes.unissue(e)) {
      this.rejectWaiting(e, 'cancelled', error); // in the oldest strategy's issue queue: the sequence goes on
      this.lanes.completeAndNext(e.slot);
    } else if (e.slot) {
      const slot = e.slot;
      for (const x of slot.queue.splice(0)) if (x) this.rejectWaiting(x, 'cancelled', error);
      if (slot.key !== undefined && this.table.bound.get(slot.key) === slot.ref) this.table.bound.delete(slot.key);
      if (slot.key !== undefined) this.lastSeen.delete(slot.key);
      this.lanes.forceEnd(slot);
    }
    this.pumpAll();
    return true;
  }

  /** Unload: refuse new sequences, finish every accepted request, then stop instances and free all state. */
  async stop(): Promise<void> {
    if (this.state === 'stopped' || this.state === 'failed') return;
    if (this.state !== 'stopping') {
      this.state = 'stopping';
      this.pumpAll();
    }
    if (!this.drained()) await new Promise<void>((resolve) => this.stopWaiters.push(resolve));
    this.wakeUp.clear();
    this.lanes.freeAll();
    this.opts.stateMemory?.release();
    this.state = 'stopped';
    await Promise.all(this.pool.instances.filter((p) => p.state !== 'stopped' && p.state !== 'failed').map((p) => this.instances.stop(p)));
  }

  /** Live batching changes are the dynamic batcher's; a sequence model's config changes by reloading it. */
  applyLiveChange(): never {
    throw SchedulerError.of('invalid', errors.INVALID(`model ${this.model} uses the sequence batcher: its batching is changed by editing config.pbtxt and reloading, not live`));
  }

  /** Slots are bound to instances for a sequence's life; changing the count live is not built. */
  setInstanceCount(): never {
    throw SchedulerError.of('invalid', errors.INVALID(`model ${this.model} uses the sequence batcher: its instance count is changed by reloading, not live`));
  }

  snapshot(): SequenceSnapshot {
    return sequenceSnapshot(this.state, this.policy, this.lanes.all, this.table.backlog, this.states, this.stats, this.waiting.size);
  }

  // ---- slots and backlog ----

  private addToBacklog(b: Backlog<Entry<P, R>>, e: Entry<P, R>, now: number): void {
    b.entries.push(e);
    // a request timeout applies to a backlogged sequence only (Triton's reaper)
    if (e.req.timeoutUs !== undefined && e.req.timeoutUs > 0) {
      b.expiresUs = Math.min(b.expiresUs, now + e.req.timeoutUs);
      this.armTimer(b.expiresUs);
    }
  }

  /** A slot's sequence ended (END taken, force-ended, cancelled): the slot goes to the backlog's oldest, or is free. */
  private releaseSlot(slot: Slot<P, R>): void {
    this.viewDirty = true;
    this.states.free(slot.holder);
    slot.key = undefined;
    slot.cid = undefined;
    const next = this.table.release(slot.ref, (e) => e.end);
    if (next) {
      slot.key = next.key;
      slot.cid = next.id;
      for (const e of next.entries) e.slot = slot;
      slot.queue.push(...next.entries);
    }
  }

  // ---- time: idle sequences, backlog timeouts, strategy delays ----

  private armTimer(atUs: number): void {
    if (this.state !== 'stopped') this.wakeUp.arm(atUs);
  }

  private onTimer = (): void => {
    this.viewDirty = true; // the reaper may end idle sequences and time out backlogged ones
    this.reap(this.clock.now());
    this.pumpAll();
  };

  private reap(now: number): void {
    for (const [key, seen] of this.lastSeen) {
      if (now < seen + this.policy.idleUs) {
        this.armTimer(seen + this.policy.idleUs);
        continue;
      }
      const ref = this.table.bound.get(key);
      if (ref) {
        this.table.bound.delete(key);
        this.lastSeen.delete(key);
        this.lanes.forceEnd(this.lanes.slotAt(ref));
      } else if (this.table.collecting.has(key)) {
        this.armTimer(now + BACKLOG_IDLE_RECHECK_US); // still waiting for a slot: look again later
      } else {
        this.lastSeen.delete(key);
      }
    }
    for (const b of [...this.table.backlog]) {
      if (b.expiresUs > now) {
        if (b.expiresUs !== Infinity) this.armTimer(b.expiresUs);
        continue;
      }
      this.table.dropBacklog(b);
      for (const e of b.entries) this.rejectWaiting(e, 'timeout', backlogTimeoutError());
    }
  }

  // ---- answers ----

  private rejectWaiting(e: Entry<P, R>, reason: 'timeout' | 'cancelled', error: InferError): void {
    this.viewDirty = true;
    if (!this.waiting.delete(e.id)) return;
    e.queued = false;
    this.answers.rejectQueued(e, reason, error);
  }

  private held(): boolean {
    const h = this.hold;
    if (!h) return false;
    let inSlots = 0;
    for (const lane of this.lanes.all) {
      inSlots += lane.issued.length;
      for (const s of lane.slots) inSlots += s.queue.length;
    }
    const backlogged = this.table.backlog.reduce((n, b) => n + b.entries.length, 0);
    if (inSlots < h.requests || backlogged < (h.backlog ?? 0)) return true;
    this.hold = undefined;
    return false;
  }

  private pumpAll(): void {
    if (this.state === 'created' || this.state === 'failed') return;
    this.lanes.pump();
    this.notifyIfDrained();
    this.publishView();
  }

  /** Every path that binds, releases or backlogs a sequence ends in pumpAll or a batch settling: tell watchers. */
  private publishView(): void {
    if (!this.emit.active || !this.viewDirty) return;
    this.viewDirty = false;
    const view = sequenceView(this.policy, this.lanes.all, this.table.backlog, this.states);
    const key = sequenceViewKey(view);
    if (key === this.lastViewKey) return;
    this.lastViewKey = key;
    this.emit.sequenceSlots(view);
  }

  private notifyIfDrained(): void {
    if (this.state === 'stopping' && this.drained()) this.stopWaiters.splice(0).forEach((w) => w());
  }

  private drained(): boolean {
    return this.waiting.size === 0 && !this.lanes.running;
  }
}
