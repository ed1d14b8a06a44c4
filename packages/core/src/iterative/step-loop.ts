/**
 * The loop that runs a step planner on a clock: it forms a step at each boundary, hands it to the
 * executor, and when the executor answers, delivers the tokens, retires the finished and forms the next
 * step at once (the boundary: whatever arrived during the step joins now). When idle, a new request starts
 * a step at the same instant, after every request submitted at that instant (a timer at `now`), so
 * simultaneous arrivals share their first step.
 *
 * Every submitted request is answered exactly once through its sink: done with all its tokens, or
 * rejected (never servable under the knobs), cancelled, or failed (its step's executor failed).
 * Events go to the listener for the timeline, the block map and the figures (figures.ts).
 */
import type { Clock, TimerHandle } from '../clock/clock';
import type { KvBlockMap } from '../kv-cache/index';
import type { HandOver, PlannedStep, StepPlanner } from './planner';
import { GenSequence } from './sequence';
import type { GenOutcome, GenRequest, GenSink, IterEvent, StepExecutor, StepTokens } from './types';

/** What a sequence the client gave up is answered with (its end outcome's message). */
export const CANCELLED_BY_CLIENT = 'cancelled by the client';

export interface StepLoopOptions {
  clock: Clock;
  executor: StepExecutor;
  planner: StepPlanner;
  listener?: (e: IterEvent) => void;
  /**
   * `step_finished` and `idle` carry the block map (every block's owner and fill), so a block map can be
   * drawn at every step from the events alone (the lessons' simulator). Off by default: it is a copy of the
   * whole budget per step, and a server's live view reads the planner's map at its own pace instead.
   */
  blockMaps?: boolean;
}

export class StepLoop {
  private readonly sinks = new Map<string, GenSink>();
  private inFlight: PlannedStep | null = null;
  private timer: TimerHandle | null = null;
  /** why the loop stopped for good (a planner bug), or null */
  private broken: string | null = null;
  /** work waiting for the step in flight to end (live changes), run before the next step is formed */
  private boundaryWork: (() => void)[] = [];
  private planner: StepPlanner;
  private executor: StepExecutor;

  constructor(private readonly o: StepLoopOptions) {
    this.planner = o.planner;
    this.executor = o.executor;
  }

  get idle(): boolean {
    return this.inFlight === null && this.timer === null && !this.planner.busy;
  }

  /**
   * Runs `work` at a step boundary: now when no step is in flight, else as soon as it ends, before the
   * next step is formed, so what `work` reads (who runs, who waits) is what it changes. Its result, or
   * what it threw, is the promise's.
   */
  atBoundary<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const run = () => {
        try {
          resolve(work());
        } catch (e) {
          reject(e);
        }
      };
      if (this.inFlight) this.boundaryWork.push(run);
      else run();
    });
  }

  /**
   * Replaces the planner (and the executor that holds its KV blocks) at a boundary: call it from
   * `atBoundary` work. The new planner takes over every live sequence (PlannerBase.takeOver): the
   * admitted ones are recomputed, each reported as preempted at the next step, and keep their sinks, so
   * every request still gets its one answer and the tokens it would have had.
   */
  replacePlanner(planner: StepPlanner & { takeOver(h: HandOver): void }, executor: StepExecutor): void {
    if (this.inFlight) throw new Error('the generation planner is replaced only at a step boundary');
    const handed = this.planner.handOver();
    planner.takeOver(handed);
    this.planner = planner;
    this.executor = executor;
    const t = this.o.clock.now();
    for (const v of handed.recomputed) this.emit({ type: 'seq_preempted', t, step: handed.steps + 1, id: v.id, generated: v.generated.length, recompute: v.knownLength });
    if (planner.busy) this.kick();
  }

  /** The planner steps are formed by now (it changes when a live change replaces it). */
  get current(): StepPlanner {
    return this.planner;
  }

  submit(request: GenRequest, sink: GenSink): void {
    const t = this.o.clock.now();
    const s = new GenSequence(request);
    const problem =
      this.broken ?? (this.sinks.has(request.id) ? `request ${request.id}: a sequence with this id is already being generated` : this.planner.enqueue(s));
    if (problem) {
      this.emit({ type: 'seq_rejected', t, id: String(request.id), message: problem });
      sink.onEnd({ ok: false, reason: 'rejected', message: problem, tokens: [] });
      return;
    }
    this.sinks.set(s.id, sink);
    this.emit({ type: 'seq_queued', t, id: s.id, promptTokens: s.prompt.length, maxTokens: s.maxTokens });
    this.kick();
  }

  /** The client went away: answered now; a running sequence's slot and blocks are freed at the next boundary. */
  cancel(id: string, message = CANCELLED_BY_CLIENT): boolean {
    const where = this.planner.cancel(id);
    if (!where) return false;
    this.finish(id, { ok: false, reason: 'cancelled', message, tokens: [] });
    return true;
  }

  private kick(): void {
    if (this.inFlight || this.timer !== null) return;
    this.timer = this.o.clock.setTimer(this.o.clock.now(), () => {
      this.timer = null;
      this.next();
    });
  }

  private next(): void {
    if (this.inFlight || this.broken !== null) return; // one step at a time: a kick from inside a step's answer waits for it
    let step: PlannedStep | null;
    try {
      step = this.planner.plan();
    } catch (e) {
      // A planner bug (its accounting no longer holds): nothing it holds can be trusted to finish, so every
      // request still open is answered now, and later ones are refused, instead of waiting forever.
      this.broken = `the generation scheduler stopped: ${e instanceof Error ? e.message : String(e)}`;
      for (const id of [...this.sinks.keys()]) this.finish(id, { ok: false, reason: 'failed', message: this.broken, tokens: [] });
      return;
    }
    if (!step) {
      this.emit({ type: 'idle', t: this.o.clock.now(), kv: this.planner.kvUsage(), ...this.blocks() });
      return;
    }
    const t = this.o.clock.now();
    const { batch } = step;
    for (const v of step.preempted) {
      this.emit({ type: 'seq_preempted', t, step: batch.step, id: v.id, generated: v.generated.length, recompute: v.knownLength });
    }
    this.emit({
      type: 'step_started',
      t,
      step: batch.step,
      rows: batch.rows.map((r) => ({ id: r.id, kind: r.kind, tokens: r.tokens.length })),
      joined: step.joined,
      padSlots: batch.padSlots,
      tokens: batch.tokens,
      kv: this.planner.kvUsage(),
    });
    this.inFlight = step;
    if (batch.rows.length === 0) return this.stepDone(step, t, null, []);
    const call = { sync: true };
    const done = this.answerOnce(step, t, call);
    try {
      this.executor.runStep(batch, done);
    } catch (e) {
      done(e ?? new Error('the step executor threw'));
    }
    call.sync = false;
  }

  /** The executor's answer to one step, heard once (returned, not bound to a name: ARCHITECTURE.md, hot paths). */
  private answerOnce(step: PlannedStep, t: number, call: { sync: boolean }): (error: unknown, tokens?: StepTokens) => void {
    let answered = false;
    return (error, tokens) => {
      if (answered) return; // an executor that answers twice is heard once
      answered = true;
      // An executor that answers inside runStep continues from a timer, so steps never nest on the stack.
      if (call.sync) this.o.clock.setTimer(this.o.clock.now(), () => this.stepDone(step, t, error, tokens));
      else this.stepDone(step, t, error, tokens);
    };
  }

  private stepDone(step: PlannedStep, startedAt: number, error: unknown, tokens: StepTokens | undefined): void {
    // The events are told now, in order; the sinks (a server's socket writes) only once the next step has
    // been handed to the executor, so delivering this step's tokens overlaps the next step's compute
    // instead of delaying its start. A request a sink submits then joins the step after.
    const t = this.o.clock.now();
    const deliveries: (() => void)[] = [];
    let failure: string | null = null;
    if (!error) {
      try {
        const out = this.planner.complete(step, tokens ?? []);
        for (const d of out.delivered) {
          this.emit({ type: 'token', t, step: step.batch.step, id: d.id, index: d.index, token: d.token });
          const sink = this.sinks.get(d.id);
          if (sink?.onToken) deliveries.push(() => sink.onToken!(d.token, d.index));
        }
        for (const s of out.finished) this.finish(s.id, { ok: true, tokens: [...s.generated], finishReason: s.stopped ? 'stop' : 'length' }, deliveries);
      } catch (e) {
        failure = e instanceof Error ? e.message : String(e);
      }
    } else failure = error instanceof Error ? error.message : String(error);
    if (failure !== null) {
      for (const s of this.planner.abort(step)) {
        this.finish(s.id, { ok: false, reason: 'failed', message: `generation step ${step.batch.step} failed: ${failure}`, tokens: [...s.generated] }, deliveries);
      }
    }
    this.emit({ type: 'step_finished', t, step: step.batch.step, durationUs: t - startedAt, kv: this.planner.kvUsage(), ...this.blocks() });
    this.inFlight = null;
    for (const work of this.boundaryWork.splice(0)) work();
    this.next();
    for (const deliver of deliveries) deliver();
  }

  /** Retires a sequence: told to the listener now, to its sink now or (`later`) when the caller runs it. */
  private finish(id: string, outcome: GenOutcome, later?: (() => void)[]): void {
    const sink = this.sinks.get(id);
    if (!sink) return;
    this.sinks.delete(id);
    const kind = outcome.ok ? 'done' : outcome.reason === 'cancelled' ? 'cancelled' : 'failed';
    this.emit({ type: 'seq_finished', t: this.o.clock.now(), id, outcome: kind, tokens: outcome.tokens.length });
    if (later) later.push(() => sink.onEnd(outcome));
    else sink.onEnd(outcome);
  }

  private blocks(): { blocks?: KvBlockMap } {
    return this.o.blockMaps ? { blocks: this.planner.blockMap() } : {};
  }

  private emit(e: IterEvent): void {
    this.o.listener?.(e);
  }
}
