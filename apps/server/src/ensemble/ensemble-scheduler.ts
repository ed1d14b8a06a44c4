/**
 * The scheduler of an ensemble model version: what the ModelManager holds in the slot where a backend
 * model holds core's ModelScheduler (same SchedulerLike seam, so the infer route, drain on unload and
 * the model list treat both alike). It has no queue and no instances of its own: each request runs its
 * steps through the composing models' schedulers (run-request.ts).
 *
 * Events, on the shared bus, as Triton's statistics see an ensemble:
 * - request.queued / request.completed (or request.rejected) for the ensemble request itself: success
 *   and fail counts and the request's total duration; compute_us is the sum of its steps' compute
 *   times (Triton aggregates the composing requests' compute durations into the ensemble request);
 *   queue_us is the ensemble's own wait before its first step was sent; `steps` marks it as an ensemble
 *   request (the statistics count it as one execution of its batch size, as Triton does).
 * - ensemble.step before each step request enters its model's scheduler, linking that request to its
 *   parent: the dashboard draws the pipeline from it, and tests follow a request through its steps.
 */
import type { EventBus, InferPayload, InferResult, SchedulerRequest } from '@inferscope/core';
import { SchedulerError } from '@inferscope/core';
import type { ModelConfig } from '@inferscope/core/config/types.ts';
import { ManagerError } from '../models/errors';
import type { SchedulerLike, SchedulerView } from '../models/runtime';
import { buildPlan, type EnsemblePlan } from './plan';
import { runEnsembleRequest, type StepHost } from './run-request';

/** Live edits an ensemble cannot take: it batches and runs nothing itself. */
export function ensembleEditError(model: string, what: 'dynamic batching' | 'instance count'): ManagerError {
  return new ManagerError('INVALID_ARG', `model '${model}' is an ensemble: it has no ${what === 'dynamic batching' ? 'dynamic batcher' : 'instances'} of its own; change the ${what} of the models its steps run`);
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

/** Step times of one ensemble request, summed from its steps' request.completed events. */
interface StepTimes {
  computeUs: number;
}

export class EnsembleScheduler implements SchedulerLike {
  readonly plan: EnsemblePlan;
  private seq = 0;
  private stopped = false;
  private readonly inflight = new Set<Promise<unknown>>();
  /** step request id -> the times of the ensemble request it belongs to */
  private readonly stepTimes = new Map<string, StepTimes>();
  private off: (() => void) | undefined;

  constructor(private readonly o: EnsembleSchedulerOptions) {
    this.plan = buildPlan(o.config);
  }

  async start(): Promise<void> {
    this.off = this.o.bus.on((e) => {
      if (e.type !== 'request.completed' || this.stepTimes.size === 0) return;
      const times = this.stepTimes.get(e.request_id);
      if (times) times.computeUs += e.compute_us;
    });
  }

  enqueue(req: SchedulerRequest<InferPayload>): Promise<InferResult> {
    const { model, version, bus, now } = this.o;
    if (this.stopped) {
      return Promise.reject(new SchedulerError('unavailable', `ensemble '${model}' version ${version} is unloading`, 503));
    }
    const id = req.id ?? this.o.idPrefix + ++this.seq;
    const priority = req.priority ?? 1;
    const accepted = now();
    bus.emit({ type: 'request.queued', t: accepted, model, version, request_id: id, priority, batch_size: req.batchSize, queue_depth: 0, shape_key: req.shapeKey });
    const times: StepTimes = { computeUs: 0 };
    const stepIds: string[] = [];
    let firstStepUs: number | undefined;
    const run = runEnsembleRequest(
      this.plan,
      { id, inputs: req.payload.inputs, outputs: req.payload.outputs, priority: req.priority, timeoutUs: req.timeoutUs },
      this.o.host,
      (step, stepVersion, stepRequestId) => {
        firstStepUs ??= now();
        stepIds.push(stepRequestId);
        this.stepTimes.set(stepRequestId, times);
        bus.emit({
          type: 'ensemble.step', t: now(), model: step.model, version: stepVersion, request_id: stepRequestId,
          step: step.index, parent: { model, version, request_id: id },
        });
      },
    );
    const answered = run.then(
      (result) => {
        this.completed(id, priority, req.batchSize, accepted, firstStepUs, times, stepIds);
        return result;
      },
      (err: SchedulerError) => {
        this.completed(id, priority, req.batchSize, accepted, firstStepUs, times, stepIds, err.message);
        throw err;
      },
    );
    this.inflight.add(answered);
    void answered.then(() => this.inflight.delete(answered), () => this.inflight.delete(answered));
    return answered;
  }

  private completed(id: string, priority: number, batchSize: number, accepted: number, firstStepUs: number | undefined,
    times: StepTimes, stepIds: string[], error?: string): void {
    for (const s of stepIds) this.stepTimes.delete(s);
    const t = this.o.now();
    this.o.bus.emit({
      type: 'request.completed', t, model: this.o.model, version: this.o.version, request_id: id, batch_id: '',
      priority, batch_size: batchSize, queue_us: (firstStepUs ?? t) - accepted, compute_us: times.computeUs,
      total_us: t - accepted, ok: error === undefined, ...(error !== undefined ? { error } : {}), steps: stepIds.length,
    });
  }

  updateDynamicBatching(): never {
    throw ensembleEditError(this.o.model, 'dynamic batching');
  }

  setInstanceCount(): never {
    throw ensembleEditError(this.o.model, 'instance count');
  }

  /** Refuses new requests, waits until every accepted one is answered (their steps drain in their own models). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.o.onStopping?.();
    while (this.inflight.size > 0) await Promise.allSettled([...this.inflight]);
    this.off?.();
  }

  snapshot(): SchedulerView {
    return { instances: [], queue_depth: {} };
  }
}
