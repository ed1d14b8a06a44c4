/**
 * One lane per instance: its sequence slots, the batch it runs, and its strategy (Triton's DirectSequenceBatch
 * and OldestSequenceBatch, one per instance). An instance runs one batch at a time; the next is formed when
 * it ends, as Triton's batcher thread waits for its payload's completion.
 *
 * direct: the slot queues' fronts form the batch (direct.ts), with null requests below the highest ready
 *   slot; a slot whose END was taken is released right away, so a backlogged sequence moves in and runs from
 *   the next batch on.
 * oldest: each slot sends one request at a time into the instance's dynamic batcher (decideBatch on the
 *   issue queue: preferred sizes, max_queue_delay, max_batch_size), the next when the previous has completed
 *   (CompleteAndNext), so a batch never holds two requests of one sequence. The slot is released when its END
 *   is issued; whoever takes it waits until that END has run.
 */
import { runBatch } from '../run-batch';
import type { Clock } from '../../clock/clock';
import type { Answers } from '../answers';
import { decideBatch } from '../decide';
import type { Emitter } from '../emitter';
import type { InstancePool, PoolInstance } from '../instance-pool';
import { arraySource, type QueueEntry } from '../queue-entry';
import type { SchedulerStats } from '../snapshot';
import { batchFailure, requestFailure } from '../batch-runner';
import type { ComputePhases, Executor, SchedulerRequest } from '../types';
import type { BatchTrigger } from '../../events';
import { controlValues } from './controls';
import { decideDirect } from './direct';
import type { SequencePolicy } from './policy';
import type { SlotRef } from './slots';
import type { StateStore } from './state';
import type { CorrelationId, SequenceStep } from './types';

export interface Entry<P, R> extends QueueEntry<P, R> {
  readonly cid: CorrelationId;
  readonly key: string;
  readonly start: boolean;
  readonly end: boolean;
  /** the slot it was queued on (not while backlogged) */
  slot?: Slot<P, R>;
  /** oldest: when it entered the instance's dynamic batcher */
  issuedUs?: number;
}

/** a slot queue item: a request, or null, the reaper's (or a cancellation's) order to release the slot */
type SlotItem<P, R> = Entry<P, R> | null;

export interface Slot<P, R> {
  readonly ref: SlotRef;
  readonly lane: Lane<P, R>;
  /** the state store's key for this slot */
  readonly holder: string;
  readonly queue: SlotItem<P, R>[];
  /** the sequence it serves (Triton's seq_slot_correlation_ids_) */
  key?: string;
  cid?: CorrelationId;
  /** oldest: a request of this slot is in the dynamic batcher or running */
  inFlight: boolean;
}

export interface Lane<P, R> {
  readonly order: number;
  readonly inst: PoolInstance;
  readonly slots: Slot<P, R>[];
  /** oldest: requests issued to the instance's dynamic batcher, in issue order */
  readonly issued: Entry<P, R>[];
  running: boolean;
}

export interface LanesDeps<P, R> {
  clock: Clock;
  executor: Executor<P, R>;
  pool: InstancePool;
  emit: Emitter;
  stats: SchedulerStats;
  answers: Answers<P, R>;
  policy: SequencePolicy;
  states: StateStore;
  idPrefix: string;
  /** unloading: never wait for a delay */
  flushing(): boolean;
  /** an entry left the waiting requests (it is in a batch now) */
  left(e: Entry<P, R>): void;
  /** the slot's sequence ended: hand the slot on */
  release(slot: Slot<P, R>): void;
  wakeAt(us: number): void;
  /** a batch was answered */
  settled(): void;
  /** the test seam's hold (SequenceSchedulerOptions.holdUntil): form nothing yet */
  held(): boolean;
}

interface Position<P, R> {
  entry?: Entry<P, R>;
  req: SchedulerRequest<P>;
}

export class Lanes<P, R> {
  readonly all: Lane<P, R>[] = [];
  private batchSeq = 0;
  private nullSeq = 0;

  constructor(private readonly d: LanesDeps<P, R>) {}

  /** a started instance's lane; returns its slots, all free */
  add(inst: PoolInstance): SlotRef[] {
    const lane: Lane<P, R> = { order: this.all.length, inst, slots: [], issued: [], running: false };
    for (let index = 0; index < this.d.policy.slotsPerInstance; index++) {
      lane.slots.push({ ref: { instance: lane.order, index }, lane, holder: `${inst.info.name}#${index}`, queue: [], inFlight: false });
    }
    this.all.push(lane);
    return lane.slots.map((s) => s.ref);
  }

  slotAt(ref: SlotRef): Slot<P, R> {
    return this.all[ref.instance]!.slots[ref.index]!;
  }

  get running(): boolean {
    return this.all.some((l) => l.running);
  }

  enqueue(slot: Slot<P, R>, e: Entry<P, R>): void {
    e.slot = slot;
    slot.queue.push(e);
    slot.key = e.key;
    slot.cid = e.cid;
    if (this.d.policy.strategy === 'oldest' && !slot.inFlight) this.completeAndNext(slot);
  }

  /** requests moved into an idle slot from the backlog: the oldest strategy issues the first at once */
  adopted(slot: Slot<P, R>): void {
    if (this.d.policy.strategy === 'oldest' && !slot.inFlight && slot.queue.length > 0) this.completeAndNext(slot);
  }

  /** release the slot once the requests already queued on it have gone (Triton enqueues a null request) */
  forceEnd(slot: Slot<P, R>): void {
    slot.queue.push(null);
    if (this.d.policy.strategy === 'oldest' && !slot.inFlight) this.completeAndNext(slot);
  }

  /** oldest: take a request back out of the issue queue (cancelled); false when it is not there */
  unissue(e: Entry<P, R>): boolean {
    const issued = e.slot?.lane.issued;
    const i = issued ? issued.indexOf(e) : -1;
    if (i < 0) return false;
    issued!.splice(i, 1);
    return true;
  }

  /**
   * oldest: the slot's previous request is done (or none was in flight): issue its next one to the dynamic
   * batcher, releasing the slot when that one is END or the release order (Triton's CompleteAndNext).
   */
  completeAndNext(slot: Slot<P, R>): void {
    let retry = true;
    while (retry) {
      retry = false;
      slot.inFlight = false;
      let release = false;
      if (slot.queue.length > 0) {
        const e = slot.queue.shift()!;
        if (e === null) release = true;
        else {
          release = e.end;
          e.req.step = this.step(slot, e);
          e.issuedUs = this.d.clock.now();
          slot.inFlight = true;
          slot.lane.issued.push(e);
        }
      }
      if (release) {
        this.d.release(slot);
        retry = !slot.inFlight && slot.queue.length > 0; // a backlogged sequence moved in
      }
    }
  }

  pump(): void {
    if (this.d.held()) return;
    for (const lane of this.all) if (!lane.running && lane.inst.state === 'idle') this.form(lane);
  }

  freeAll(): void {
    for (const lane of this.all) for (const s of lane.slots) this.d.states.free(s.holder);
  }

  // ---- forming ----

  private form(lane: Lane<P, R>): void {
    if (this.d.policy.strategy === 'oldest') this.formOldest(lane);
    else this.formDirect(lane);
  }

  private formDirect(lane: Lane<P, R>): void {
    for (const slot of lane.slots) {
      while (slot.queue[0] === null) {
        slot.queue.shift();
        this.d.release(slot);
      }
    }
    const now = this.d.clock.now();
    const p = this.d.policy;
    const fronts = lane.slots.map((s) => s.queue[0] ?? undefined);
    const delay = this.d.flushing() ? 0 : p.direct.maxQueueDelayUs;
    const dec = decideDirect(fronts, { maxQueueDelayUs: delay, minimumSlotUtilization: p.direct.minimumSlotUtilization, maxBatchSize: Math.max(1, p.maxBatchSize) }, now);
    if (dec.kind === 'idle') return;
    if (dec.kind === 'wait') {
      this.d.wakeAt(dec.untilUs);
      return;
    }
    const positions: Position<P, R>[] = [];
    const nulls: number[] = [];
    for (let i = 0; i < dec.take.length; i++) {
      const slot = lane.slots[i]!;
      if (!dec.take[i]) {
        nulls.push(i);
        positions.push(undefined as unknown as Position<P, R>);
        continue;
      }
      const e = slot.queue.shift() as Entry<P, R>;
      e.req.step = this.step(slot, e);
      positions.push({ entry: e, req: e.req });
      if (e.end) this.d.release(slot);
    }
    // a null request lends the shapes of a real request of the batch (Triton copies the first one)
    const model = positions.find((x) => x?.entry)!.req;
    for (const i of nulls) positions[i] = { req: this.nullRequest(model, i) };
    this.run(lane, positions, dec.waited ? 'delay' : 'immediate', dec.oldestUs);
  }

  private formOldest(lane: Lane<P, R>): void {
    if (lane.issued.length === 0) return;
    const candidates = lane.issued.map((e) => ({ batchSize: 1, shapeKey: e.shapeKey, enqueuedUs: e.issuedUs! }));
    const dec = decideBatch(arraySource(candidates), this.d.policy.oldest, this.d.clock.now(), { flush: this.d.flushing() });
    if (dec.kind === 'wait') {
      if (dec.untilUs !== Infinity) this.d.wakeAt(dec.untilUs);
      return;
    }
    const taken = lane.issued.splice(0, dec.count);
    this.run(lane, taken.map((e) => ({ entry: e, req: e.req })), dec.trigger, dec.oldestUs);
  }

  private step(slot: Slot<P, R>, e: Entry<P, R>): SequenceStep {
    const at = { ready: true, start: e.start, end: e.end, id: e.cid };
    return {
      slot: slot.ref.index, ready: true, correlationId: e.cid, start: e.start, end: e.end,
      controls: controlValues(this.d.policy.controls, at), stateIn: this.d.states.input(slot.holder, e.start),
    };
  }

  private nullRequest(model: SchedulerRequest<P>, slot: number): SchedulerRequest<P> {
    const id = typeof model.sequence?.id === 'string' ? '' : 0n;
    const step: SequenceStep = {
      slot, ready: false, correlationId: id, start: false, end: false,
      controls: controlValues(this.d.policy.controls, { ready: false, start: false, end: false, id }),
      stateIn: this.d.states.initial(),
    };
    return { id: `${this.d.idPrefix}null${++this.nullSeq}`, batchSize: 1, shapeKey: model.shapeKey, payload: model.payload, step };
  }

  // ---- running ----

  private run(lane: Lane<P, R>, positions: Position<P, R>[], trigger: BatchTrigger, oldestUs: number): void {
    const d = this.d;
    const entries = positions.flatMap((x) => (x.entry ? [x.entry] : []));
    for (const e of entries) {
      e.queued = false;
      d.left(e);
    }
    const batchId = `${d.idPrefix}b${++this.batchSeq}`;
    const size = positions.length; // batch statistics count the null requests
    d.stats.batches++;
    d.stats.samples += size;
    lane.running = true;
    d.pool.removeFromIdle(lane.inst);
    lane.inst.state = 'busy';
    const startedUs = d.clock.now();
    lane.inst.batchId = batchId;
    lane.inst.sinceUs = startedUs;
    d.emit.batchFormed(batchId, entries, size, trigger, startedUs - oldestUs);
    d.emit.batchStarted(batchId, lane.inst.info.name, size, startedUs);
    runBatch(d.executor, lane.inst.info, positions.map((x) => x.req), (error, results, phases) => this.complete(lane, positions, batchId, startedUs, error, results, phases));
  }

  private complete(lane: Lane<P, R>, positions: Position<P, R>[], batchId: string, startedUs: number, error: unknown, results?: R[], phases?: ComputePhases): void {
    const d = this.d;
    const now = d.clock.now();
    const computeUs = now - startedUs;
    const failure = batchFailure(error, results, positions.length);
    d.emit.batchCompleted(batchId, lane.inst.info.name, positions.length, computeUs, now, failure?.message, failure ? undefined : phases);
    if (failure) d.stats.failedBatches++;
    lane.running = false;
    lane.inst.batchId = undefined;
    if (lane.inst.state === 'busy') d.pool.markIdle(lane.inst);
    const issuedNext: Slot<P, R>[] = [];
    d.answers.releaseTimeUs = now;
    positions.forEach((x, i) => {
      const e = x.entry;
      if (!e) return; // a null request: no answer, no inference
      const own = failure ? undefined : results![i];
      const err = failure ?? requestFailure(own);
      const slot = e.slot!;
      // the step's state outputs feed the sequence's next step (END freed the state already)
      if (!err && !e.end && slot.key === e.key) d.states.update(slot.holder, e.req.step?.stateOut);
      d.answers.deliver({ entry: e, error: err, result: err ? undefined : own, batchId, startedUs, computeUs, phases });
      if (d.policy.strategy === 'oldest') issuedNext.push(slot);
    });
    d.answers.releaseTimeUs = -1;
    for (const slot of issuedNext) this.completeAndNext(slot);
    this.pump();
    d.settled();
  }
}
