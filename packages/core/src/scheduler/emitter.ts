/**
 * Builds the scheduler's events. Every method returns early when nobody listens, so an unobserved scheduler
 * (benchmarks, a headless simulation that only wants the summary) allocates no event objects.
 */
import type { Clock } from '../clock/clock';
import type { InferError } from '../errors/infer-error';
import type { AutotuneChangeReason, BatchCompletedEvent, BatchTrigger, ConfigChange, EventBus, InstanceState, RejectReason, RequestCompletedEvent } from '../events';
import type { PoolInstance } from './instance-pool';
import type { AnyEntry as QueueEntry } from './queue-entry';
import type { ComputePhases } from './types';
import type { SequenceView } from './sequence/view';

export class Emitter {
  constructor(
    private readonly bus: EventBus,
    private readonly model: string,
    private readonly version: string,
    private readonly clock: Clock,
  ) {}

  get active(): boolean {
    return this.bus.size > 0;
  }

  queued(e: QueueEntry, depth: number): void {
    if (this.bus.size === 0) return;
    this.bus.emit({
      type: 'request.queued', t: e.enqueuedUs, model: this.model, version: this.version, request_id: e.id,
      priority: e.level, batch_size: e.batchSize, queue_depth: depth, shape_key: e.shapeKey,
    });
  }

  /** `enqueuedUs`: when it was queued, for a request accepted before it was refused */
  rejected(id: string, reason: RejectReason, message: string, priority: number | undefined, enqueuedUs?: number): void {
    if (this.bus.size === 0) return;
    const t = this.clock.now();
    this.bus.emit({
      type: 'request.rejected', t, model: this.model, version: this.version, request_id: id,
      reason, message, ...(priority !== undefined ? { priority } : {}), ...(enqueuedUs !== undefined ? { queued_us: t - enqueuedUs } : {}),
    });
  }

  sequenceSlots(view: SequenceView): void {
    if (this.bus.size === 0) return;
    this.bus.emit({ type: 'sequence.slots', t: this.clock.now(), model: this.model, version: this.version, view });
  }

  delayed(e: QueueEntry): void {
    if (this.bus.size === 0) return;
    this.bus.emit({ type: 'request.delayed', t: this.clock.now(), model: this.model, version: this.version, request_id: e.id, priority: e.level });
  }

  /** `nextOn`: the busy instance it was handed to (prefetch), if any */
  batchFormed(batchId: string, entries: readonly QueueEntry[], size: number, trigger: BatchTrigger, oldestWaitUs: number, nextOn?: string): void {
    if (this.bus.size === 0) return;
    this.bus.emit({
      type: 'batch.formed', t: this.clock.now(), model: this.model, version: this.version, batch_id: batchId,
      request_ids: entries.map((e) => e.id), size, trigger, oldest_wait_us: oldestWaitUs, ...(nextOn !== undefined ? { next_on: nextOn } : {}),
    });
  }

  batchStarted(batchId: string, instance: string, size: number, t: number, prefetched = false): void {
    if (this.bus.size === 0) return;
    this.bus.emit({ type: 'batch.started', t, model: this.model, version: this.version, batch_id: batchId, instance, size, ...(prefetched ? { prefetched: true as const } : {}) });
  }

  batchCompleted(batchId: string, instance: string, size: number, computeUs: number, t: number, error: string | undefined, phases?: ComputePhases): void {
    if (this.bus.size === 0) return;
    const ev: BatchCompletedEvent = {
      type: 'batch.completed', t, model: this.model, version: this.version, batch_id: batchId,
      instance, size, compute_us: computeUs, ok: error === undefined,
    };
    if (error !== undefined) ev.error = error; // set afterwards: a conditional spread allocates on the hot path
    if (phases) {
      ev.compute_input_us = phases.inputUs;
      ev.compute_output_us = phases.outputUs;
    }
    this.bus.emit(ev);
  }

  /** `t`: when the answer left (the caller reads the clock once per batch) */
  completed(e: QueueEntry, batchId: string, queueUs: number, computeUs: number, totalUs: number, t: number, error: InferError | undefined, phases?: ComputePhases): void {
    if (this.bus.size === 0) return;
    const ev: RequestCompletedEvent = {
      type: 'request.completed', t, model: this.model, version: this.version, request_id: e.id,
      batch_id: batchId, priority: e.level, batch_size: e.batchSize, queue_us: queueUs, compute_us: computeUs,
      total_us: totalUs, ok: error === undefined,
    };
    if (error !== undefined) {
      ev.error = error.message;
      ev.code = error.code;
    }
    if (phases) {
      ev.compute_input_us = phases.inputUs;
      ev.compute_output_us = phases.outputUs;
    }
    this.bus.emit(ev);
  }

  instance(inst: PoolInstance, state: InstanceState, reason?: string): void {
    if (this.bus.size === 0) return;
    const i = inst.info;
    this.bus.emit({
      type: 'instance.state', t: this.clock.now(), model: this.model, version: this.version, instance: i.name,
      kind: i.kind, device: i.device, state, ...(reason !== undefined ? { reason } : {}),
    });
  }

  configChanged(changes: ConfigChange[], by: string, reason?: AutotuneChangeReason): void {
    if (this.bus.size === 0) return;
    this.bus.emit({ type: 'config.changed', t: this.clock.now(), model: this.model, version: this.version, changes, by, ...(reason ? { reason } : {}) });
  }
}
