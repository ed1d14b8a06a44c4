/**
 * An executor whose batches take the cost model's time on a (virtual) clock. It uses the scheduler's
 * callback form so a batch completes inside the clock's timer, keeping the whole simulation synchronous
 * and deterministic. Results are the request ids. CPU-kind cost models share the simulation's CpuHost.
 */
import type { Clock } from '../clock/clock';
import type { Rng } from '../load/rng';
import type { Executor, InstanceInfo, SchedulerRequest } from '../scheduler/types';
import { latencyUs, type CostModel } from './cost-model';
import { CpuHost, isCpuKind } from './cpu-host';

export class SimExecutor<P = unknown> implements Executor<P, string> {
  constructor(
    private readonly clock: Clock,
    private readonly cost: CostModel,
    private readonly rng: Rng,
    private readonly host: CpuHost = new CpuHost(),
  ) {}

  execute(instance: InstanceInfo, batch: readonly SchedulerRequest<P>[]): Promise<string[]> {
    return new Promise((resolve, reject) => this.executeWithCallback(instance, batch, (err, r) => (err ? reject(err) : resolve(r!))));
  }

  executeWithCallback(_instance: InstanceInfo, batch: readonly SchedulerRequest<P>[], done: (error: unknown, results?: string[]) => void): void {
    let size = 0;
    for (const r of batch) size += r.batchSize;
    const shares = isCpuKind(this.cost.kind);
    const slowdown = shares ? this.host.begin() : 1;
    const took = latencyUs(this.cost, size, this.rng, slowdown);
    this.clock.setTimer(this.clock.now() + took, () => {
      if (shares) this.host.end();
      done(null, batch.map((r) => r.id ?? ''));
    });
  }
}
