/**
 * The scheduler of an ensemble model version: what the ModelManager holds in the slot where a backend
 * model holds core's ModelScheduler (same Scheduler seam, so the infer route, drain on unload and
 * the model list treat both alike). It has no queue and no instances of its own: each request runs its
 * steps through the composing models' schedulers (run-request.ts).
 *
 * Events, on the shared bus, as Triton's statistics see an ensemble:
 * - request.queued / request.completed (ok or not) for the ensemble request itself: success
 *   and fail counts and the request's total duration; compute_us is the sum of its steps' compute
 *   times (Triton aggregates the composing requests' compute durations into the ensemble request);
 *   queue_us is the ensemble's own wait before its first step was sent; `steps` marks it as an ensemble
 *   request (the statistics count it as one execution of its batch size, as Triton does).
 * - ensemble.step before each step request enters its model's scheduler, linking that request to its
 *   parent: the dashboard draws the pipeline from it, and tests follow a request through its steps.
 */
import type { EventBus, InferPayload, InferResult, SchedulerRequest } from '@inferscope/core';
import { asInferError, InferError, errors, SchedulerError } from '@inferscope/core';
import type { ModelConfig } from '@inferscope/core/config';
import type { Scheduler, SchedulerView } from '@inferscope/core/scheduler';
import type { ChainedPayload } from '../infer/call-chain';
import { buildPlan, type EnsemblePlan, type StepPlan } from './plan';
import { runEnsembleRequest, type StepHost, type StepListener } from './run-request';

/** Live edits an ensemble cannot take: it batches and runs nothing itself. */
export function ensembleEditError(model: string, what: 'dynamic batching' | 'instance count'): InferError {
  return new InferError('INVALID_ARG', `model '${model}' is an ensemble: it has no ${what === 'dynamic batching' ? 'dynamic batcher' : 'instances'} of its own; change the ${what} of the models its steps run`);
}

export interface EnsembleSchedulerOptions {
  model: string;
  version: string;
  config: ModelConfig;
  bus: EventBus;
  /** µs on the schedulers' clock */
  now: () => number;
  host: StepHost;
  /** unique per load of this model version (request ids stay unique across reloads) */
  idPrefix: string;
  /** called when stop() begins: the scheduler takes no new requests from then on */
  onStopping?: () => void;
}

/**
 * One ensemble request while it runs (Triton's RequestTracker): the step requests it sent, when the first
 * left, and their compute time summed from their request.completed events.
 */
class TrackedRequest implements StepListener {
  computeUs = 0;
  firstStepUs: number | undefined;
  readonly stepIds: string[] = [];

  constructor(readonly owner: EnsembleScheduler, readonly id: string, readonly priority: number, readonly batchSize: number, readonly accepted: number) {}

  stepSent(step: StepPlan, stepVersion: string, stepRequestId: string): void {
    this.owner.stepSent(this, step, stepVersion, stepRequestId);
  }
}

export class EnsembleScheduler implements Scheduler {
  readonly plan: EnsemblePlan;
  private seq = 0;
  private stopped = false;
  private inflight = 0;
  private drained: (() => void) | undefined;
  private stopping: Promise<void> | undefined;
  /** step request id -> the ensemble request it belongs to */
  private readonly steps = new Map<string, TrackedRequest>();
  private off: (() => void) | undefined;

  constructor(private readonly o: EnsembleSchedulerOptions) {
    this.plan = buildPlan(o.config);
  }

  async start(): Promise<void> {
    this.off = this.o.bus.on((e) => {
      if (e.type !== 'request.completed' || this.steps.size === 0) return;
      const tracked = this.steps.get(e.request_id);
      if (tracked) tracked.computeUs += e.compute_us;
    });
  }

  enqueue(req: SchedulerRequest<InferPayload>): Promise<InferResult> {
    const { model, version } = this.o;
    if (this.stopped) {
      return Promise.reject(SchedulerError.of('unavailable', errors.MODEL_UNAVAILABLE(`ensemble '${model}' version ${version}`, 'is unloading')));
    }
    const tracked = new TrackedRequest(this, req.id ?? this.o.idPrefix + ++this.seq, req.priority ?? 1, req.batchSize, this.o.now());
    this.o.bus.emit({
      type: 'request.queued', t: tracked.accepted, model, version, request_id: tracked.id, priority: tracked.priority,
      batch_size: req.batchSize, queue_depth: 0, shape_key: req.shapeKey,
    });
    this.inflight++;
    const { payload } = req;
    const { callChain } = payload as ChainedPayload;
    return runEnsembleRequest(this.plan, { id: tracked.id, inputs: payload.inputs, outputs: payload.outputs, priority: req.priority, timeoutUs: req.timeoutUs, sequence: req.sequence, callChain }, this.o.host, tracked)
      .then(
        (result) => {
          this.completed(tracked);
          return result;
        },
        (err: SchedulerError) => {
          this.completed(tracked, asInferError(err));
          throw err;
        },
      );
  }

  /** A step request of `tracked` is about to enter its model's scheduler. */
  stepSent(tracked: TrackedRequest, step: StepPlan, stepVersion: string, stepRequestId: string): void {
    const t = this.o.now();
    tracked.firstStepUs ??= t;
    tracked.stepIds.push(stepRequestId);
    this.steps.set(stepRequestId, tracked);
    this.o.bus.emit({
      type: 'ensemble.step', t, model: step.model, version: stepVersion, request_id: stepRequestId, step: step.index,
      parent: { model: this.o.model, version: this.o.version, request_id: tracked.id },
    });
  }

  private completed(r: TrackedRequest, error?: InferError): void {
    for (const s of r.stepIds) this.steps.delete(s);
    const t = this.o.now();
    this.o.bus.emit({
      type: 'request.completed', t, model: this.o.model, version: this.o.version, request_id: r.id, batch_id: '',
      priority: r.priority, batch_size: r.batchSize, queue_us: (r.firstStepUs ?? t) - r.accepted, compute_us: r.computeUs,
      total_us: t - r.accepted, ok: error === undefined, ...(error !== undefined ? { error: error.message, code: error.code } : {}), steps: r.stepIds.length,
    });
    if (--this.inflight === 0) this.drained?.();
  }

  /** the callback form of enqueue (the Scheduler seam), for requests that may be cancelled */
  submit(req: SchedulerRequest<InferPayload>, settle: (err: Error | null, result?: InferResult) => void): string {
    const withId = { ...req, id: req.id ?? this.o.idPrefix + ++this.seq };
    this.enqueue(withId).then((r) => settle(null, r), (e: Error) => settle(e));
    return withId.id;
  }

  /** An ensemble holds no queue of its own (its steps queue in their models): nothing to take out. */
  cancel(): boolean {
    return false;
  }

  applyLiveChange(): never {
    throw ensembleEditError(this.o.model, 'dynamic batching');
  }

  setInstanceCount(): never {
    throw ensembleEditError(this.o.model, 'instance count');
  }

  /** Refuses new requests, waits until every accepted one is answered (their steps drain in their own models). */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      this.stopped = true;
      this.o.onStopping?.();
      if (this.inflight > 0) await new Promise<void>((resolve) => (this.drained = resolve));
      this.off?.();
    })();
    return this.stopping;
  }

  snapshot(): SchedulerView {
    return { instances: [], queue_depth: {} };
  }
}
