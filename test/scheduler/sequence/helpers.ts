/**
 * Test doubles for the sequence batcher: an accumulator executor (Triton's qa sequence models sum their
 * inputs per sequence) whose batches stay running until the test finishes them, and a harness on a
 * VirtualClock. No sleeps.
 */
import { EventBus, type SchedulerEvent } from '@inferscope/core/events.ts';
import { VirtualClock } from '@inferscope/core/clock';
import { SequenceScheduler, type SequenceSchedulerOptions } from '@inferscope/core/scheduler/sequence/sequence-scheduler.ts';
import type { SchedulerConfigInput } from '@inferscope/core/scheduler/config-input.ts';
import type { Executor, InstanceInfo, SchedulerRequest } from '@inferscope/core/scheduler/types.ts';
import type { CorrelationId, StateValue } from '@inferscope/core/scheduler/sequence/types.ts';

export interface Batch {
  instance: InstanceInfo;
  requests: readonly SchedulerRequest<number>[];
  done: (error: unknown, results?: number[]) => void;
}

const int32 = (v: StateValue): number => new DataView(v.data.buffer, v.data.byteOffset, 4).getInt32(0, true);

/**
 * With implicit state: output = state + input, and the new state is the output (qa's accumulator with
 * implicit state). Without: the output is the input.
 */
export class AccumulatorExecutor implements Executor<number, number> {
  running: Batch[] = [];
  all: Batch[] = [];

  execute(): Promise<number[]> {
    throw new Error('callback form expected');
  }

  executeWithCallback(instance: InstanceInfo, requests: readonly SchedulerRequest<number>[], done: Batch['done']): void {
    const b = { instance, requests, done };
    this.running.push(b);
    this.all.push(b);
  }

  /** finish the oldest running batch (or the one on `instance`) */
  finish(instance?: string): Batch {
    const i = instance === undefined ? 0 : this.running.findIndex((b) => b.instance.name === instance);
    const b = this.running.splice(i, 1)[0];
    if (!b) throw new Error('no running batch');
    b.done(null, b.requests.map((r) => {
      const step = r.step!;
      const state = step.stateIn.INPUT_STATE;
      if (!state) return r.payload;
      const out = int32(state) + r.payload;
      const data = new Uint8Array(4);
      new DataView(data.buffer).setInt32(0, out, true);
      step.stateOut = { OUTPUT_STATE: { dataType: 'TYPE_INT32', shape: state.shape, data } };
      return out;
    }));
    return b;
  }

  /** finish every batch until none runs (new ones formed meanwhile too) */
  drain(): void {
    while (this.running.length > 0) this.finish();
  }

  /** each batch as its positions: `<id>:<value>` for a request, '-' for a null */
  compositions(): string[][] {
    return this.all.map((b) => b.requests.map((r) => (r.step!.ready ? `${String(r.sequence!.id)}:${r.payload}` : '-')));
  }
}

export interface Answer {
  result?: number;
  error?: { reason: string; message: string; code: string };
}

export class SeqHarness {
  clock = new VirtualClock();
  bus = new EventBus();
  events: SchedulerEvent[] = [];
  exec = new AccumulatorExecutor();
  answers = new Map<string, Answer[]>();
  sched: SequenceScheduler<number, number>;
  private n = 0;

  constructor(config: SchedulerConfigInput, opts: Partial<SequenceSchedulerOptions<number, number>> = {}) {
    this.bus.on((e) => this.events.push(e));
    this.sched = new SequenceScheduler({ model: 'm', version: '1', config, clock: this.clock, bus: this.bus, executor: this.exec, ...opts });
  }

  async start(): Promise<void> {
    await this.sched.start();
  }

  /** flags: 'start', 'end', 'start,end' or '' */
  send(id: CorrelationId | undefined, flags: string, value: number, extra: Partial<SchedulerRequest<number>> = {}): string {
    const rid = `r${++this.n}`;
    const sequence = id === undefined ? undefined : { id, start: flags.includes('start'), end: flags.includes('end') };
    this.sched.submit({ id: rid, batchSize: 1, shapeKey: '', payload: value, ...(sequence ? { sequence } : {}), ...extra }, (err, res) => {
      const e = err as (Error & { reason: string; code: string }) | null;
      const list = this.answers.get(rid) ?? [];
      list.push(e ? { error: { reason: e.reason, message: e.message, code: e.code } } : { result: res });
      this.answers.set(rid, list);
    });
    return rid;
  }

  /** the one answer of `rid` (throws when answered more than once) */
  answer(rid: string): Answer | undefined {
    const list = this.answers.get(rid);
    if (list && list.length > 1) throw new Error(`${rid} answered ${list.length} times`);
    return list?.[0];
  }

  /** batch sizes counted as Triton's batch statistics do: { size: executions } */
  batchStats(): Record<number, number> {
    const out: Record<number, number> = {};
    for (const e of this.events) if (e.type === 'batch.completed' && e.ok) out[e.size] = (out[e.size] ?? 0) + 1;
    return out;
  }

  /** Triton's inference_count: requests answered successfully (null requests are none) */
  inferenceCount(): number {
    return this.events.filter((e) => e.type === 'request.completed' && e.ok).length;
  }

  slotsOf(instance = 0): (string | null)[] {
    return this.sched.snapshot().instances[instance]!.slots.map((s) => s.sequence?.id ?? null);
  }
}

/** send a sequence's requests at once: [flags, value] each */
export function sendAll(h: SeqHarness, id: bigint, steps: [string, number][]): string[] {
  return steps.map(([f, v]) => h.send(id, f, v));
}

/** qa's test_backlog_fill: four sequences fill the four slots, two length-1 sequences wait in the backlog */
export function sendBacklogFill(h: SeqHarness): { r5: string; r6: string } {
  sendAll(h, 1001n, [['start', 1], ['', 2], ['end', 3]]);
  sendAll(h, 1002n, [['start', 11], ['end', 13]]);
  sendAll(h, 1003n, [['start', 111], ['end', 113]]);
  sendAll(h, 1004n, [['start', 1111], ['', 1112], ['end', 1113]]);
  return { r5: h.send(1005n, 'start,end', 11111), r6: h.send(1006n, 'start,end', 22222) };
}

/** the three batches of four test_backlog_fill expects (both strategies) */
export const BACKLOG_FILL_BATCHES = [
  ['1001:1', '1002:11', '1003:111', '1004:1111'],
  ['1001:2', '1002:13', '1003:113', '1004:1112'],
  ['1001:3', '1005:11111', '1006:22222', '1004:1113'],
];
