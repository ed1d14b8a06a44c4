/**
 * One request into a model version's scheduler, as every door sends it (HTTP, gRPC, an ensemble's step,
 * BLS): admitted as its call chain allows (call-chain.ts), and cancelled when its client goes away
 * (cancellable.ts), the running request's executor told so through its payload.
 */
import { SchedulerError, type EventBus, type InferPayload, type InferResult, type SchedulerRequest } from '@inferscope/core';
import type { Scheduler } from '@inferscope/core/scheduler';
import { admitChained, type ChainedPayload } from './call-chain';
import { enqueueCancellable, type CancellablePayload, type CancelSignal } from './cancellable';

export function enqueueRequest(
  bus: EventBus, model: string, version: string, scheduler: Scheduler, req: SchedulerRequest<InferPayload>, signal?: CancelSignal,
): Promise<InferResult> {
  const admitted = admitChained(bus, req.payload as ChainedPayload, model, version, () => scheduler.snapshot().instances ?? []);
  if ('refused' in admitted) return Promise.reject(SchedulerError.of('unavailable', admitted.refused));
  const { watch } = admitted;
  if (!signal && !watch) return scheduler.enqueue(req) as Promise<InferResult>;
  // a running request's executor may stop early (a python model's request.is_cancelled())
  if (signal) (req.payload as CancellablePayload).cancelled = signal;
  return enqueueCancellable(scheduler, req, signal, watch);
}
