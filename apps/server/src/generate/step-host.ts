/**
 * The step loop of a generative model, run inside its onnxruntime instance's worker thread, beside the
 * session (the program the worker hosts: worker.mjs's 'host' message loads this module and calls
 * `startProgram`). TensorRT-LLM's executor runs its batch manager in its own thread the same way and
 * hands the frontend finished tokens: a step follows the one before without waiting for the main thread,
 * whose event loop is left to take requests and write tokens to sockets. With the loop on the main thread
 * each step paid two thread hand-offs and waited behind the sockets' writes (bench/generate/README.md).
 *
 * The worker's blocking loop drives it: it hands over every message from the main thread (`receive`) and
 * calls `turn` between them, which runs one due task (a step, or the loop's boundary work) and posts what
 * the loop told its listener and sinks in one message. Time is the scheduler's clock (the offset in
 * HostInit), so the events carry the times a loop in the main thread would have stamped. Messages that
 * arrive while a step computes are taken (`poll`) before its boundary, so a request that came during
 * a step joins the next one, as it would on the main thread.
 */
import type { Clock, TimerHandle } from '@inferscope/core/scheduler';
import type { GenSink, IterEvent, StepExecutor } from '@inferscope/core/iterative';
import type { KvStepTensor } from '@inferscope/core/kv-cache';
import { StepEngine } from './step-engine';
import { sharedNowUs, type FromLoop, type HostInit, type ToLoop } from './engine-wire';

/** What the worker gives the program. */
export interface ProgramIo {
  /** the instance's session, run now on one step's inputs: every output's data by name */
  run(inputs: readonly KvStepTensor[]): Record<string, Float32Array>;
  /** posts to the main thread */
  post(body: FromLoop[]): void;
  /** hands over every message the main thread has sent meanwhile (to `receive`) */
  poll(): void;
}

/** What the worker drives. */
export interface ProgramGuest {
  receive(body: ToLoop): void;
  /** runs one due task and posts what it told; returns ms until the next task (0: one is due now; Infinity: none) */
  turn(): number;
}

interface Task {
  at: number;
  fn: () => void;
  cancelled: boolean;
}

/** The loop's clock in this thread: timers are tasks the worker's blocking loop runs in time order. */
class TaskClock implements Clock {
  private tasks: Task[] = [];

  constructor(private readonly offsetUs: number) {}

  now(): number {
    return sharedNowUs() + this.offsetUs;
  }

  setTimer(at: number, fn: () => void): TimerHandle {
    const task: Task = { at, fn, cancelled: false };
    let i = this.tasks.length;
    while (i > 0 && this.tasks[i - 1]!.at > at) i--;
    this.tasks.splice(i, 0, task);
    return task;
  }

  clearTimer(handle: TimerHandle): void {
    (handle as Task).cancelled = true;
  }

  /** Runs the first task if it is due: 0 when it ran one (or one is due), else ms until the next, Infinity when none. */
  runDue(): number {
    while (this.tasks[0]?.cancelled) this.tasks.shift();
    const first = this.tasks[0];
    if (!first) return Infinity;
    const wait = first.at - this.now();
    if (wait > 0) return wait / 1000;
    this.tasks.shift();
    first.fn();
    return 0;
  }
}

export function startProgram(init: HostInit, io: ProgramIo): ProgramGuest {
  const clock = new TaskClock(init.clockOffsetUs);
  let out: FromLoop[] = [];
  // the block tables go with every step (a few hundred bytes: the main thread derives the blocks when read)
  const sendMap = () => out.push({ k: 'map', tables: engine.loop.current.blockTables() });
  const listener = (e: IterEvent) => {
    out.push({ k: 'event', e });
    if (e.type === 'idle' || e.type === 'step_finished') sendMap();
  };
  // Each step is a task of its own: the boundary's tokens are posted before the next step computes, and
  // what arrived during a step is taken before its boundary forms the next one.
  const deferred = (executor: StepExecutor): StepExecutor => ({
    runStep: (batch, done) => {
      clock.setTimer(clock.now(), () =>
        executor.runStep(batch, (error, tokens) => {
          io.poll();
          done(error, tokens);
        }),
      );
    },
  });
  const engine = new StepEngine(init.setup, { run: (inputs) => io.run(inputs) }, clock, listener, deferred);
  // methods, not arrow properties: a sink is made per request, and under tsx an arrow bound to a name pays
  // a defineProperty (ARCHITECTURE.md, hot paths)
  const sinkOf = (id: string): GenSink => ({
    onToken(token, index) {
      out.push({ k: 'token', id, token, index });
    },
    onEnd(outcome) {
      out.push({ k: 'end', id, outcome });
    },
  });
  return {
    receive(body) {
      switch (body.op) {
        case 'submit':
          return engine.submit(body.request, sinkOf(body.request.id));
        case 'cancel':
          return void engine.cancel(body.id);
        case 'replan':
          engine.replan(body.knobs).then(
            () => {
              out.push({ k: 'replanned', ref: body.ref, error: null });
              sendMap();
            },
            (e: unknown) => out.push({ k: 'replanned', ref: body.ref, error: e instanceof Error ? e.message : String(e) }),
          );
      }
    },
    turn() {
      const wait = clock.runDue();
      if (out.length > 0) {
        const body = out;
        out = [];
        io.post(body);
      }
      return wait;
    },
  };
}
