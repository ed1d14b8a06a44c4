/**
 * An executor whose batches take the cost model's time on a (virtual) clock. It uses the scheduler's
 * callback form so a batch completes inside the clock's timer, keeping the whole simulation synchronous
 * and deterministic. Results are the request ids.
 */
import type { Clock } from '../clock/clock';
import type { Rng } from '../load/rng';
import type { Executor, InstanceInfo, SchedulerRequest } from '../scheduler/types';
import { latencyUs, type CostModel } from './cost-model';

export class SimExecutor<P = unknown> implements Executor<P, string> {
  constructor(
    private readonly clock: Clock,
    private readonly cost: CostModel,
    private readonly rng: Rng,
  ) {}

  execute(instance: InstanceInfo, batch: readonly SchedulerRequest<P>[]): Promise<string[]> {
    return new Promise((resolve, reject) => this.executeWithCallback(instance, batch, (err, r) => (err ? reject(err) : resolve(r!))));
  }

  executeWithCallback(_instance: InstanceInfo, batch: readonly SchedulerRequest<P>[], done: (error: unknown, results?: string[]) => void): void {
    let size = 0;
    for (const r of batch) size += r.batchSize;
    const took = latencyUs(this.cost, size, this.rng);
    this.clock.setTimer(this.clock.now() + took, () => done(null, batch.map((r) => r.id ?? '')));
  }
}
