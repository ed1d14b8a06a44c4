/**
 * The main thread's own work per request on the in-process path the load generator drives: making the
 * request's input, ModelManager.infer, the scheduler and its events, gathering the batch for the worker,
 * the result message, splitting outputs, answering. Measured as event-loop active time (ELU) over a run
 * of `requests` requests from `concurrency` closed-loop clients, divided by the requests. On a 2-core
 * host this work takes CPU from the instances (the simulator's CpuHost counts it as load).
 */
import { performance } from 'node:perf_hooks';
import { InProcessTarget, type InProcessManager } from '../load/targets';

export async function measureMainThreadUsPerRequest(manager: InProcessManager, model: string, requests = 2000, concurrency = 16): Promise<number> {
  const target = new InProcessTarget(manager);
  const drive = async (n: number) => {
    let sent = 0;
    await Promise.all(Array.from({ length: concurrency }, async () => {
      while (sent < n) {
        sent++;
        await target.infer({ model, batchSize: 1 });
      }
    }));
  };
  await drive(200); // warm-up
  const before = performance.eventLoopUtilization();
  await drive(requests);
  const used = performance.eventLoopUtilization(before);
  return Math.round(((used.active * 1000) / requests) * 10) / 10;
}
