/**
 * What a model running in a stub may ask of the server (BLS inference, custom metrics): one object made
 * by the app, handed to every stub backend at load (ModelLoadContext.calls). It reaches models through the
 * model manager late-bound (`attach`), because the manager is built after the backends' runtime.
 */
import type { EventBus, InferPayload, InferResult, SchedulerRequest } from '@inferscope/core';
import type { ModelConfig } from '@inferscope/core/config';
import type { CancelSignal } from '../../infer/cancel-signal';
import { CustomMetrics } from '../../metrics/custom-metrics';

/** The parts of the ModelManager a BLS call uses (the same as an ensemble step's). */
export interface ModelsForCalls {
  /** the READY version a call addresses, or throws with Triton's message and code (unknown / not ready) */
  require(name: string, version?: string): { name: string; version: string; config: ModelConfig };
  infer(name: string, version: string, req: SchedulerRequest<InferPayload>, signal?: CancelSignal): Promise<InferResult>;
}

export class ServerCalls {
  readonly metrics = new CustomMetrics();
  private models: ModelsForCalls | undefined;

  constructor(
    readonly bus: EventBus,
    /** µs on the schedulers' clock */
    readonly now: () => number,
  ) {}

  attach(models: ModelsForCalls): void {
    this.models = models;
  }

  get manager(): ModelsForCalls {
    if (!this.models) throw new Error('the server is still starting: no models to call yet');
    return this.models;
  }
}
