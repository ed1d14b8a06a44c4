/** Test doubles for the scheduler: a hand-driven executor and a harness on a VirtualClock. No sleeps. */
import { EventBus, type SchedulerEvent } from '@inferscope/core/events.ts';
import { VirtualClock } from '@inferscope/core/clock';
import { ModelScheduler } from '@inferscope/core/scheduler/model-scheduler.ts';
import type { SchedulerConfigInput } from '@inferscope/core/scheduler/config-input.ts';
import type { ComputePhases, Executor, InstanceInfo, SchedulerRequest } from '@inferscope/core/scheduler/types.ts';

export interface RunningBatch {
  instance: InstanceInfo;
  requests: readonly SchedulerRequest<string>[];
  done: (error: unknown, results?: string[], phases?: ComputePhases) => void;
}

/** Batches stay running until the test completes them; results echo the payloads. */
export class ManualExecutor implements Executor<string, string> {
  running: RunningBatch[] = [];
  all: RunningBatch[] = [];
  started: string[] = [];
  stopped: string[] = [];

  execute(): Promise<string[]> {
    throw new Error('callback form expected');
  }

  executeWithCallback(instance: InstanceInfo, requests: readonly SchedulerRequest<string>[], done: RunningBatch['done']): void {
    const b = { instance, requests, done };
    this.running.push(b);
    this.all.push(b);
  }

  async startInstance(i: InstanceInfo): Promise<void> {
    this.started.push(i.name);
  }

  async stopInstance(i: InstanceInfo): Promise<void> {
    this.stopped.push(i.name);
  }

  /** finish the oldest running batch (or the one at `index`) successfully */
  finish(index = 0): RunningBatch {
    const b = this.running.splice(index, 1)[0];
    if (!b) throw new Error('no running batch');
    b.done(null, b.requests.map((r) => `ok:${r.payload}`));
    return b;
  }

  fail(index = 0, message = 'boom'): RunningBatch {
    const b = this.running.splice(index, 1)[0];
    b.done(new Error(message));
    return b;
  }

  sizes(): number[] {
    return this.all.map((b) => b.requests.reduce((n, r) => n + r.batchSize, 0));
  }
}

/**
 * ManualExecutor whose instances may be handed one batch behind the running one (prefetch 1) and can give
 * it back while it has not begun (reclaim), as the onnxruntime workers can. An instance's first batch in
 * `running` is the one it runs; the test finishes batches by hand.
 */
export class PrefetchExecutor extends ManualExecutor {
  readonly prefetch = 1;
  /** request ids of each batch taken back, in order */
  reclaimed: (string | undefined)[][] = [];
  /** the batches taken back (a test may call their `done` late, as a misbehaving executor would) */
  given: RunningBatch[] = [];
  /** answer every reclaim with "it has begun" (an executor whose instance raced ahead) */
  refuse = false;

  reclaim(instance: InstanceInfo, batch: readonly SchedulerRequest<string>[]): boolean {
    const i = this.running.findIndex((b) => b.requests === batch);
    const begun = this.running.find((b) => b.instance.name === instance.name)?.requests === batch;
    if (this.refuse || i < 0 || begun) return false;
    this.given.push(...this.running.splice(i, 1));
    this.all.splice(this.all.findIndex((b) => b.requests === batch), 1);
    this.reclaimed.push(batch.map((r) => r.id));
    return true;
  }
}

export interface Outcome {
  id: string;
  result?: string;
  error?: { reason: string; message: string; httpStatus: number };
}

export class Harness {
  clock = new VirtualClock();
  bus = new EventBus();
  events: SchedulerEvent[] = [];
  exec = new ManualExecutor();
  outcomes = new Map<string, Outcome[]>();
  /** order in which answers arrived */
  answerOrder: string[] = [];
  sched: ModelScheduler<string, string>;

  constructor(config: SchedulerConfigInput, executor?: Executor<string, string>) {
    this.bus.on((e) => this.events.push(e));
    this.sched = new ModelScheduler({ model: 'm', version: '1', config, clock: this.clock, bus: this.bus, executor: executor ?? this.exec });
  }

  async start(): Promise<void> {
    await this.sched.start();
  }

  send(payload: string, opts: Partial<SchedulerRequest<string>> = {}): string {
    const id = opts.id ?? payload;
    this.sched.submit({ id, batchSize: 1, shapeKey: '', payload, ...opts }, (err, res) => {
      const list = this.outcomes.get(id) ?? [];
      const e = err as (Error & { reason: string; httpStatus: number }) | null;
      list.push(e ? { id, error: { reason: e.reason, message: e.message, httpStatus: e.httpStatus } } : { id, result: res });
      this.outcomes.set(id, list);
      this.answerOrder.push(id);
    });
    return id;
  }

  outcome(id: string): Outcome | undefined {
    const list = this.outcomes.get(id);
    if (list && list.length > 1) throw new Error(`${id} answered ${list.length} times`);
    return list?.[0];
  }

  of<T extends SchedulerEvent['type']>(type: T): Extract<SchedulerEvent, { type: T }>[] {
    return this.events.filter((e) => e.type === type) as Extract<SchedulerEvent, { type: T }>[];
  }

  /** every id answered exactly once */
  assertAllAnsweredOnce(ids: readonly string[]): void {
    for (const id of ids) {
      const n = this.outcomes.get(id)?.length ?? 0;
      if (n !== 1) throw new Error(`${id} answered ${n} times`);
    }
  }
}

export const tick = () => new Promise<void>((r) => setImmediate(r));
