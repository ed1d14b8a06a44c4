/**
 * The main thread's own work per request on the in-process path the load generator drives: making the
 * request's input, ModelManager.infer, the scheduler and its events, gathering the batch for the worker,
 * the result message, splitting outputs, answering. Measured as event-loop active time (ELU) over a run
 * of `requests` requests from `concurrency` closed-loop clients, divided by the requests. On a 2-core
 * host this work takes CPU from the instances (the simulator's CpuHost counts it as load).
 *
 * The same run also counts the garbage collections it caused (gc-probe.ts): how many requests it takes to
 * fill the young generation, and how long each collection stopped the main thread. The stall probe cannot
 * see these (its idle loop allocates nothing); a server pays them in proportion to its request rate (the
 * simulator's GcPauses). Closed-loop clients allocate least; a run driven otherwise measures its own.
 */
import { performance } from 'node:perf_hooks';
import { InProcessTarget, type InProcessManager } from '../../apps/server/src/loadgen/targets';
import type { GcProfile } from '../sim-host/schemas';
import { measureGcProfile } from './gc-probe';

export interface MainThreadCost {
  us_per_request: number;
  /** absent when the run collected no garbage */
  gc?: GcProfile;
}

export async function measureMainThread(manager: InProcessManager, model: string, requests = 2000, concurrency = 16): Promise<MainThreadCost> {
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
  let used = performance.eventLoopUtilization();
  const gc = await measureGcProfile(async () => {
    const before = performance.eventLoopUtilization();
    await drive(requests);
    used = performance.eventLoopUtilization(before);
    return requests;
  });
  const us_per_request = Math.round(((used.active * 1000) / requests) * 10) / 10;
  return gc ? { us_per_request, gc } : { us_per_request };
}

export async function measureMainThreadUsPerRequest(manager: InProcessManager, model: string, requests = 2000, concurrency = 16): Promise<number> {
  return (await measureMainThread(manager, model, requests, concurrency)).us_per_request;
}
