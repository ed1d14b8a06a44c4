/**
 * Runs an arrival trace through the real ModelScheduler on the VirtualClock with the simulator's executor
 * (SimExecutor, a fixed cost per batch, no spread), with or without the hand-off an executor may hide
 * (prefetch 1 with reclaim: the server's onnxruntime workers and stubs declare it), and returns the batches
 * as they ran. Tests compare these across executors and against batches worked out by hand.
 */
import { EventBus, type SchedulerEvent } from '@inferscope/core/events.ts';
import { VirtualClock } from '@inferscope/core/clock';
import { Rng } from '@inferscope/core/load/rng.ts';
import { ModelScheduler } from '@inferscope/core/scheduler/model-scheduler.ts';
import type { SchedulerConfigInput } from '@inferscope/core/scheduler/config-input.ts';
import { SimExecutor } from '@inferscope/core/sim/sim-executor.ts';
import type { CostModel } from '@inferscope/core/sim';

/** one request: its id, its batch size (samples), when it arrives (µs) */
export type Arrival = readonly [id: string, batchSize: number, atUs: number];

export interface RanBatch {
  ids: string[];
  instance: string;
  startUs: number;
  endUs: number;
}

export interface TraceRun {
  batches: RanBatch[];
  events: SchedulerEvent[];
  /** answers per request id (each must be 1) */
  answers: Map<string, number>;
}

/**
 * `cost`: µs per batch as fixed + per sample. `prefetch`: the batches an instance may hold behind its
 * running one (0: the simulator as teaching mode runs it; 1: the server's executors).
 */
export function runTrace(config: SchedulerConfigInput, trace: readonly Arrival[], cost: CostModel, prefetch: number, instances = 1): TraceRun {
  const clock = new VirtualClock();
  const bus = new EventBus();
  const events: SchedulerEvent[] = [];
  bus.on((e) => events.push(e));
  const executor = new SimExecutor<null>(clock, cost, new Rng(1), { prefetch });
  const sched = new ModelScheduler({ model: 'm', version: '1', config: { ...config, instance_group: [{ count: instances, kind: 'KIND_GPU' }] }, clock, bus, executor });
  void sched.start();
  const answers = new Map<string, number>();
  for (const [id, batchSize, at] of trace) {
    clock.setTimer(at, () => sched.submit({ id, batchSize, shapeKey: '', payload: null }, () => answers.set(id, (answers.get(id) ?? 0) + 1)));
  }
  let steps = 0;
  while (clock.step()) if (++steps > 1_000_000) throw new Error('the trace never ends');
  const started = new Map<string, { instance: string; t: number }>();
  const ended = new Map<string, number>();
  for (const e of events) {
    if (e.type === 'batch.started') started.set(e.batch_id, { instance: e.instance, t: e.t });
    if (e.type === 'batch.completed') ended.set(e.batch_id, e.t);
  }
  const batches = events
    .filter((e): e is Extract<SchedulerEvent, { type: 'batch.formed' }> => e.type === 'batch.formed')
    .map((f) => ({ ids: f.request_ids, instance: started.get(f.batch_id)!.instance, startUs: started.get(f.batch_id)!.t, endUs: ended.get(f.batch_id)! }))
    .sort((a, b) => a.startUs - b.startUs || a.instance.localeCompare(b.instance));
  return { batches, events, answers };
}

/** batches as "[ids] start-end", for readable assertions */
export const shown = (r: TraceRun): string[] => r.batches.map((b) => `[${b.ids.join(',')}] ${b.startUs}-${b.endUs}`);
