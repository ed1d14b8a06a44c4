/**
 * The instance map both kinds of out-of-thread instance share (onnxruntime worker threads, stub
 * processes): start and stop, one start-up at a time per instance, a dead handle replaced at once (the
 * model keeps serving) and counted, and the dispatch of a batch to the live handle with the one resend
 * the exactly-once rule allows (owed-batches.ts: a batch its dead handle never began goes to the
 * replacement, once). What a handle is, how it is brought up and what it reserves stay with the executor.
 */
import type { ComputePhases, InstanceInfo } from '@inferscope/core';
import { NotStartedError } from './owed-batches';

/** A running instance's worker or process. */
export interface InstanceHandle {
  close(): Promise<void>;
}

/** One instance's supervision state; executors add their own fields (reservations, device, ...). */
export interface Supervised<H> {
  readonly info: InstanceInfo;
  /** the live handle; null while none is up (not started yet, starting, died) */
  handle: H | null;
  starting: Promise<H> | null;
  stopped: boolean;
  restarts: number;
}

export interface SupervisorHooks<S> {
  model: string;
  log(msg: string): void;
  /** brings a handle up for `rt` and ends with `supervisor.adopt(rt, handle)` */
  bringUp(rt: S): Promise<InstanceHandle>;
  /** releases what `rt` reserved (memory), once its handle is closed */
  release(rt: S): void;
}

/**
 * Posts a batch on `handle` (synchronously: the scheduler relies on the batch being handed over inside
 * its dispatch, see OrtExecutor.executeWithCallback). `again` is true for the resend to a replacement.
 * The handle's answer goes to `finish(err, results)`: a batch the dead handle never began is sent to the
 * replacement (once); otherwise the batch is answered with the error, or with `results()` (a throw there
 * answers the batch with that error). `remote` is what the handle measured on its side of the hand-off
 * (a worker thread's or stub process's tensor conversions): dispatch adds its own side (preparing the
 * batch here, and `results()`) and reports the sum as the batch's compute_input / compute_output.
 */
export type SendBatch<H, R> = (handle: H, again: boolean, finish: (err: unknown, results: () => R[], remote?: ComputePhases) => void) => void;

const elapsedUs = (since: number) => (performance.now() - since) * 1000;

export class InstanceSupervisor<H extends InstanceHandle, X extends object> {
  private readonly instances = new Map<string, Supervised<H> & X>();

  constructor(private readonly hooks: SupervisorHooks<Supervised<H> & X>) {}

  get(name: string): (Supervised<H> & X) | undefined {
    return this.instances.get(name);
  }

  list(): (Supervised<H> & X)[] {
    return [...this.instances.values()];
  }

  /** Registers the instance and (unless `lazy`) brings its handle up; a failed start forgets it again. */
  async start(info: InstanceInfo, extra: X, lazy = false): Promise<void> {
    if (this.instances.has(info.name)) throw new Error(`instance ${info.name} is already started`);
    const rt: Supervised<H> & X = { ...extra, info, handle: null, starting: null, stopped: false, restarts: 0 };
    this.instances.set(info.name, rt);
    if (lazy) return;
    try {
      await this.ensure(rt);
    } catch (err) {
      this.instances.delete(info.name);
      throw err;
    }
  }

  /** Stops the instance after its start-up (if any) settles; its batches already sent are finished by close(). */
  async stop(info: InstanceInfo): Promise<void> {
    const rt = this.instances.get(info.name);
    if (!rt) return;
    rt.stopped = true;
    await rt.starting?.catch(() => undefined);
    await rt.handle?.close();
    rt.handle = null;
    this.hooks.release(rt);
    this.instances.delete(info.name);
  }

  async stopAll(): Promise<void> {
    await Promise.all(this.list().map((rt) => this.stop(rt.info)));
  }

  /** The live handle, or the one start-up in progress (started here when there is none). */
  ensure(rt: Supervised<H> & X): Promise<H> {
    if (rt.stopped) return Promise.reject(new Error(`instance ${rt.info.name} of model '${this.hooks.model}' is stopping`));
    if (rt.handle) return Promise.resolve(rt.handle);
    if (!rt.starting) {
      rt.starting = (this.hooks.bringUp(rt) as Promise<H>).finally(() => {
        rt.starting = null;
      });
    }
    return rt.starting;
  }

  /** The end of a bring-up: the handle becomes the instance's, unless it was stopped meanwhile. */
  async adopt(rt: Supervised<H> & X, handle: H): Promise<H> {
    if (rt.stopped) {
      await handle.close();
      throw new Error(`instance ${rt.info.name} was stopped while starting`);
    }
    rt.handle = handle;
    return handle;
  }

  /** A handle ended without being asked to: replace it now, so the next batch does not pay for it. */
  died(rt: Supervised<H> & X, handle: H, error: Error): void {
    if (rt.handle !== handle) return; // died during start-up: bringUp reports that itself
    rt.handle = null;
    if (rt.stopped) return;
    rt.restarts++;
    this.hooks.log(`${error.message}; restarting instance ${rt.info.name} (restart ${rt.restarts})`);
    // A failed restart is retried by the next batch, which then reports the error.
    this.ensure(rt).catch((err: Error) => this.hooks.log(err.message));
  }

  /**
   * Hands a batch to the instance: `prepare` (after the instance is found; a throw fails the batch without
   * touching the instance) returns how to post it; it is posted at once when the handle is up, else when
   * the start-up ends. `done` gets every failure that happens here.
   */
  dispatch<R>(info: InstanceInfo, done: (error: unknown, results?: R[], phases?: ComputePhases) => void, prepare: () => SendBatch<H, R>): void {
    const rt = this.instances.get(info.name);
    if (!rt) {
      done(new Error(`instance ${info.name} of model '${this.hooks.model}' is not started`));
      return;
    }
    let send: SendBatch<H, R>;
    const prepared = performance.now();
    try {
      send = prepare();
    } catch (err) {
      done(err);
      return;
    }
    const prepareUs = elapsedUs(prepared);
    const delivery = new Delivery(rt, send, prepareUs, done, () => this.ensure(rt));
    if (rt.handle && !rt.stopped) send(rt.handle, false, delivery.finish);
    else this.ensure(rt).then((h) => send(h, false, delivery.finish), (err: unknown) => done(err));
  }
}

/**
 * One batch handed to an instance, until it is answered: its results split (timed as compute output), or a
 * batch queued behind one that killed the handle sent once to the replacement. A class, not closures made
 * per batch: under tsx each closure bound to a name pays a defineProperty (ARCHITECTURE.md, hot paths).
 */
class Delivery<H extends InstanceHandle, R> {
  private resent = false;
  /** the backend's callback (an arrow kept as a field: made once per batch, named by no one) */
  readonly finish: (err: unknown, results: () => R[], remote?: ComputePhases) => void;

  constructor(
    private readonly rt: Supervised<H>,
    private readonly send: SendBatch<H, R>,
    private readonly prepareUs: number,
    private readonly done: (error: unknown, results?: R[], phases?: ComputePhases) => void,
    /** the instance's handle, restarted if it died */
    private readonly handle: () => Promise<H>,
  ) {
    this.finish = (err, results, remote) => this.finished(err, results, remote);
  }

  private finished(err: unknown, results: () => R[], remote?: ComputePhases): void {
    const { done } = this;
    if (err instanceof NotStartedError && !this.resent && !this.rt.stopped) {
      // Queued behind a batch that killed its handle: it never ran, so it goes to the replacement.
      this.resent = true;
      this.handle().then((h) => {
        try {
          this.send(h, true, this.finish);
        } catch (e) {
          done(e); // never leave the batch unanswered
        }
      }, (e: unknown) => done(e));
      return;
    }
    if (err) {
      done(err);
      return;
    }
    let answers: R[];
    const split = performance.now();
    try {
      answers = results();
    } catch (e) {
      done(e);
      return;
    }
    done(null, answers, { inputUs: this.prepareUs + (remote?.inputUs ?? 0), outputUs: elapsedUs(split) + (remote?.outputUs ?? 0) });
  }
}

/** A note the user should see once (model state, log), e.g. a GPU fallback. */
export function noteOnce(notes: string[], log: (msg: string) => void, note: string): void {
  if (notes.includes(note)) return;
  notes.push(note);
  log(note);
}
